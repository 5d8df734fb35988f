import { request } from 'node:http';
import { startTestGateway, type TestGateway } from './support';

/** The CSP of a GET with a Host header of our choosing (fetch cannot set Host). */
function cspWithHost(url: string, headers: Record<string, string>): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { headers }, (response) => {
      response.resume();
      const csp = response.headers['content-security-policy'];
      resolve(Array.isArray(csp) ? csp.join(', ') : csp);
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** The headers helmet sets, as every gateway response carries them. */
const expected = {
  'content-security-policy': expect.any(String) as unknown,
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

function headersOf(response: Response): Record<string, string> {
  return Object.fromEntries(
    Object.keys(expected).flatMap((name) => {
      const value = response.headers.get(name);
      return value === null ? [] : [[name, value]];
    }),
  );
}

/** The CSP's directives by name. */
function directives(csp: string | null | undefined): Record<string, string> {
  return Object.fromEntries(
    (csp ?? '')
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const [name = '', ...values] = part.split(/\s+/);
        return [name, values.join(' ')];
      }),
  );
}

describe('security headers on every response', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it.each([
    '/healthz',
    '/api/time',
    '/api/user',
    '/api/nowhere',
    '/graphql?query=%7B__typename%7D',
  ])('GET %s carries them', async (path) => {
    const response = await fetch(gateway.url(path), {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(headersOf(response)).toEqual(expected);
    expect(response.headers.get('x-powered-by')).toBeNull();
  });

  it('has a CSP the web app lives with (antd inline styles, ad media, same-origin sockets)', async () => {
    const csp = await cspWithHost(gateway.url('/api/time'), { host: 'play.test:8080' });
    expect(directives(csp)).toEqual({
      'default-src': "'self'",
      'base-uri': "'self'",
      'script-src': "'self'",
      'script-src-attr': "'none'",
      'style-src': "'self' 'unsafe-inline'",
      'img-src': "'self' data: https:",
      'media-src': "'self' https:",
      'font-src': "'self' data:",
      'connect-src': "'self'",
      'frame-src': "'self'",
      'object-src': "'none'",
      'form-action': "'self'",
      'frame-ancestors': "'self'",
    });
  });

  it("serves the GraphQL landing page outside production without the CSP (it loads from Apollo's CDN)", async () => {
    const response = await fetch(gateway.url('/graphql'), { headers: { accept: 'text/html' } });
    expect(response.headers.get('content-security-policy')).toBeNull();
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('behind HTTPS allows wss: to the public origin and upgrades insecure requests', async () => {
    const secure = await startTestGateway({
      env: { COOKIE_SECURE: 'true', TRUST_PROXY: '1', PUBLIC_ORIGINS: 'https://play.test' },
    });
    try {
      const csp = directives(
        await cspWithHost(secure.url('/api/time'), {
          host: 'play.test',
          'x-forwarded-proto': 'https',
        }),
      );
      expect(csp['connect-src']).toBe("'self' wss://play.test");
      expect(csp).toHaveProperty('upgrade-insecure-requests', '');
    } finally {
      await secure.stop();
    }
  });

  it('puts no host it cannot vouch for into the policy', async () => {
    const csp = directives(
      await cspWithHost(gateway.url('/api/time'), { host: "evil.test;script-src:'unsafe-inline'" }),
    );
    expect(csp['connect-src']).toBe("'self'");
    expect(csp['script-src']).toBe("'self'");
  });
});
