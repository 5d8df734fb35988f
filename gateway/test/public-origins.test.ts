import { request } from 'node:http';
import { WebSocket } from 'ws';
import { startTestGateway, type TestGateway } from './support';

// Issue 24 I1 and I3: a WebSocket's Origin is compared whole (scheme, host and port) with the
// public origin(s), and the CSP's connect-src comes from configuration, not from the Host header.

/** The status of a WebSocket upgrade to /ws with these headers: 101 when it opened. */
function upgradeStatus(gateway: TestGateway, headers: Record<string, string>) {
  return new Promise<number | undefined>((resolve) => {
    const socket = new WebSocket(gateway.url('/ws').replace(/^http/, 'ws'), { headers });
    socket.on('unexpected-response', (_req, res) => resolve(res.statusCode));
    socket.on('open', () => {
      socket.close();
      resolve(101);
    });
    socket.on('error', () => resolve(undefined));
  });
}

/** The CSP's connect-src of a GET with a Host header of our choosing (fetch cannot set Host). */
function connectSrc(gateway: TestGateway, headers: Record<string, string>) {
  return new Promise<string | undefined>((resolve, reject) => {
    const sent = request(gateway.url('/api/time'), { headers }, (response) => {
      response.resume();
      const csp = String(response.headers['content-security-policy'] ?? '');
      const directive = csp
        .split(';')
        .map((part) => part.trim())
        .find((part) => part.startsWith('connect-src '));
      resolve(directive?.slice('connect-src '.length));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('public origins without PUBLIC_ORIGINS (standalone, tests)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it("accepts a socket from the page's own origin, scheme and port included", async () => {
    expect(await upgradeStatus(gateway, { origin: gateway.url('') })).toBe(101);
  });

  it.each([
    ['another scheme', (own: URL) => `https://${own.host}`],
    ['another port', (own: URL) => `http://${own.hostname}:1`],
    ['another host', () => 'http://evil.example'],
    ['an opaque origin', () => 'null'],
  ])('refuses a socket from %s', async (_case, originOf) => {
    const origin = originOf(new URL(gateway.url('')));
    expect(await upgradeStatus(gateway, { origin })).toBe(403);
  });

  it("allows connect-src 'self' only, whatever Host the request names", async () => {
    expect(await connectSrc(gateway, { host: 'evil.example:8080' })).toBe("'self'");
  });
});

describe('public origins with PUBLIC_ORIGINS', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      env: { PUBLIC_ORIGINS: 'https://play.example, http://localhost:8080' },
    });
  });
  afterAll(() => gateway.stop());

  it.each(['https://play.example', 'http://localhost:8080'])(
    'accepts a socket from %s',
    async (origin) => {
      expect(await upgradeStatus(gateway, { origin })).toBe(101);
    },
  );

  it.each(['http://play.example', 'https://play.example:8443', 'https://evil.example'])(
    'refuses a socket from %s',
    async (origin) => {
      expect(await upgradeStatus(gateway, { origin, host: 'play.example' })).toBe(403);
    },
  );

  it("refuses the gateway's own address when it is not a public origin", async () => {
    expect(await upgradeStatus(gateway, { origin: gateway.url('') })).toBe(403);
  });

  it('lists the configured origins in connect-src, never the Host header', async () => {
    expect(await connectSrc(gateway, { host: 'evil.example' })).toBe(
      "'self' wss://play.example ws://localhost:8080",
    );
  });

  it('refuses a malformed list at start', () => {
    return expect(startTestGateway({ env: { PUBLIC_ORIGINS: 'play.example' } })).rejects.toThrow(
      /PUBLIC_ORIGINS/,
    );
  });
});
