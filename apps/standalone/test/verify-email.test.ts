import { createLogger } from '@underdog/kit';
import { createStandalone, listeningUrl, type Standalone } from '../src';
import { browserAt, codeIn, mailTo as mailIn, uniqueEmail } from './support';

const password = 'correct-horse1';
const silent = createLogger({ service: 'underdog', level: 'silent' });

/** A six-digit code that is not `code`. */
const wrongCode = (code: string) => (code === '000000' ? '111111' : '000000');

describe('verify-email reveals no account (standalone: gateway + auth + notification)', () => {
  let standalone: Standalone;
  const url = (path: string) => `http://127.0.0.1:${standalone.http.port()}${path}`;
  const browser = () => browserAt(url);
  const mailTo = (email: string) => mailIn(url, email);

  beforeAll(async () => {
    standalone = await createStandalone({
      logger: silent,
      env: {},
      port: 0,
      host: '127.0.0.1',
      nodeEnv: 'test',
    });
    await standalone.group.start();
  });
  afterAll(() => standalone.group.stop());

  /**
   * A visitor's call (no cookie) as the spec's client makes it, always with the same
   * `X-Request-Id`, so that two answers can be compared byte for byte.
   */
  async function asVisitor(path: string, body: unknown) {
    const response = await fetch(url(path), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-device-id': 'device-visitor',
        'x-request-id': 'probe-1',
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.text() };
  }

  /** An unverified account (with its code) and a verified one (with its used code). */
  async function accounts() {
    const unverified = uniqueEmail('una');
    const verified = uniqueEmail('vera');
    for (const email of [unverified, verified]) {
      expect(
        (await browser().post('/api/register', { email, displayName: 'Probe', password })).status,
      ).toBe(200);
    }
    const verifiedCode = codeIn(await mailTo(verified));
    const login = browser();
    expect((await login.post('/api/login', { email: verified, password })).status).toBe(200);
    expect((await login.post('/api/verify-email', { code: verifiedCode })).status).toBe(200);
    return {
      unknown: { email: uniqueEmail('nobody'), code: '123456' },
      unverified: { email: unverified, code: wrongCode(codeIn(await mailTo(unverified))) },
      verifiedWrong: { email: verified, code: wrongCode(verifiedCode) },
      // The code that did verify it, once more: a verified account is never verified again.
      verifiedUsed: { email: verified, code: verifiedCode },
    };
  }

  it('REST: a wrong code gets the same status and body for unknown, unverified and verified e-mails', async () => {
    const probes = await accounts();

    const answers = [];
    for (const probe of Object.values(probes)) {
      answers.push(await asVisitor('/api/verify-email', probe));
    }

    expect(answers).toEqual(
      Array.from({ length: 4 }, () => ({
        status: 400,
        body: JSON.stringify({
          message: 'Invalid verification code',
          code: 'CODE_INVALID',
          requestId: 'probe-1',
        }),
      })),
    );
  });

  it('GraphQL: a wrong code gets the same status and body for unknown, unverified and verified e-mails', async () => {
    const probes = await accounts();
    const query =
      'mutation ($code: String, $email: String) { verifyEmail(code: $code, email: $email) { id email role } }';

    const answers = [];
    for (const variables of Object.values(probes)) {
      answers.push(await asVisitor('/graphql', { query, variables }));
    }

    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]?.status).toBe(400);
    expect(JSON.parse(answers[0]?.body ?? '')).toMatchObject({
      data: { verifyEmail: null },
      errors: [{ message: 'Invalid verification code', extensions: { code: 'CODE_INVALID' } }],
    });
  });

  it("REST: a visitor's right code verifies the account but answers no user", async () => {
    const email = uniqueEmail('rita');
    await browser().post('/api/register', { email, displayName: 'Rita', password });

    const answer = await browser().post('/api/verify-email', {
      email,
      code: codeIn(await mailTo(email)),
    });

    expect(answer).toEqual({ status: 200, body: { user: null } });
    const login = await browser().post('/api/login', { email, password });
    expect(login.body).toMatchObject({ email, isEmailVerified: true });
  });

  it("GraphQL: a visitor's right code verifies the account but answers no user", async () => {
    const email = uniqueEmail('gina');
    await browser().post('/api/register', { email, displayName: 'Gina', password });

    const answer = await browser().graphql(
      'mutation ($code: String, $email: String) { verifyEmail(code: $code, email: $email) { id } }',
      { email, code: codeIn(await mailTo(email)) },
    );

    expect(answer).toEqual({ status: 200, body: { data: { verifyEmail: null } } });
    const login = await browser().post('/api/login', { email, password });
    expect(login.body).toMatchObject({ email, isEmailVerified: true });
  });

  it('keeps the own flow: after registering, the code verifies and answers the user (REST and GraphQL)', async () => {
    const rest = browser();
    const restEmail = uniqueEmail('own');
    await rest.post('/api/register', { email: restEmail, displayName: 'Own', password });
    const restAnswer = await rest.post('/api/verify-email', {
      code: codeIn(await mailTo(restEmail)),
    });
    expect(restAnswer).toMatchObject({
      status: 200,
      body: { user: { email: restEmail, isEmailVerified: true } },
    });
    expect((await rest.get('/api/user')).body).toMatchObject({ isEmailVerified: true });

    const graphql = browser();
    const graphqlEmail = uniqueEmail('owngql');
    await graphql.post('/api/register', { email: graphqlEmail, displayName: 'Own', password });
    const graphqlAnswer = await graphql.graphql(
      'mutation ($code: String) { verifyEmail(code: $code) { email isEmailVerified } }',
      { code: codeIn(await mailTo(graphqlEmail)) },
    );
    expect(graphqlAnswer.body).toEqual({
      data: { verifyEmail: { email: graphqlEmail, isEmailVerified: true } },
    });
  });

  it('still tells its own session why a code failed', async () => {
    const client = browser();
    const email = uniqueEmail('sid');
    await client.post('/api/register', { email, displayName: 'Sid', password });
    const code = codeIn(await mailTo(email));
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      await client.post('/api/verify-email', { code: wrongCode(code) });
    }

    const fifth = await client.post('/api/verify-email', { code: wrongCode(code) });

    expect(fifth).toMatchObject({ status: 400, body: { code: 'CODE_VOIDED' } });
  });

  it('puts the address it listens on (PORT=0: the port it got) in the verification link', async () => {
    const email = uniqueEmail('link');
    await browser().post('/api/register', { email, displayName: 'Link', password });

    const mail = await mailTo(email);

    const port = standalone.http.port();
    expect(port).toBeGreaterThan(0);
    expect(mail.text).toContain(`http://127.0.0.1:${port}/verify-email/`);
  });
});

describe('the verification link of the standalone game', () => {
  it('uses PUBLIC_URL when it is set', async () => {
    const standalone = await createStandalone({
      logger: silent,
      env: { PUBLIC_URL: 'https://play.underdog.example/' },
      port: 0,
      host: '127.0.0.1',
      nodeEnv: 'test',
    });
    await standalone.group.start();
    try {
      const url = (path: string) => `http://127.0.0.1:${standalone.http.port()}${path}`;
      const email = uniqueEmail('pub');
      await browserAt(url).post('/api/register', { email, displayName: 'Pub', password });

      const mail = await mailIn(url, email);

      expect(mail.text).toContain('https://play.underdog.example/verify-email/');
    } finally {
      await standalone.group.stop();
    }
  });

  it('names a wildcard address localhost, and an IPv6 one in brackets', () => {
    expect(listeningUrl('0.0.0.0', 9123)).toBe('http://localhost:9123');
    expect(listeningUrl('::', 9123)).toBe('http://localhost:9123');
    expect(listeningUrl('127.0.0.1', 9123)).toBe('http://127.0.0.1:9123');
    expect(listeningUrl('::1', 9123)).toBe('http://[::1]:9123');
  });
});
