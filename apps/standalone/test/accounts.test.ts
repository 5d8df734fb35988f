import { createLogger } from '@underdog/kit';
import { createStandalone, type Standalone } from '../src';
import {
  browserAt,
  codeIn,
  CookieJar,
  errorBody,
  mailTo as mailIn,
  tokenIn,
  uniqueEmail,
} from './support';

const failuresPerAccount = 3;
const password = 'correct-horse1';

describe('accounts end to end (standalone: gateway + auth + notification in one process)', () => {
  let standalone: Standalone;
  const url = (path: string) => `http://127.0.0.1:${standalone.http.port()}${path}`;

  beforeAll(async () => {
    standalone = await createStandalone({
      logger: createLogger({ service: 'underdog', level: 'silent' }),
      env: { RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT: String(failuresPerAccount) },
      port: 0,
      host: '127.0.0.1',
      nodeEnv: 'test',
    });
    await standalone.group.start();
  });
  afterAll(() => standalone.group.stop());

  /** A browser: one cookie jar, one device id, JSON bodies. */
  const browser = (jar = new CookieJar()) => browserAt(url, { jar });

  const mailTo = (email: string) => mailIn(url, email);

  async function registered(name: string) {
    const client = browser();
    const email = uniqueEmail(name);
    const answer = await client.post('/api/register', { email, displayName: name, password });
    expect(answer.status).toBe(200);
    return { client, email };
  }

  it('registers, e-mails a code, verifies with it and shows the user verified', async () => {
    const client = browser();
    const email = uniqueEmail('ann');
    const registration = await client.post('/api/register', {
      email,
      displayName: 'Ann',
      password,
    });
    expect(registration.status).toBe(200);
    expect(registration.body).toMatchObject({
      message: expect.any(String),
      user: { email, displayName: 'Ann', isEmailVerified: false, role: 'user' },
    });
    expect((await client.get('/api/user')).body).toMatchObject({ email, isEmailVerified: false });

    const mail = await mailTo(email);
    expect(codeIn(mail)).toMatch(/^\d{6}$/);
    const verified = await client.post('/api/verify-email', { code: codeIn(mail) });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ user: { email, isEmailVerified: true } });

    const me = await client.get('/api/user');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email, isEmailVerified: true });
  });

  it('verifies with the e-mailed link token, without a session', async () => {
    const { email } = await registered('lin');
    const stranger = browser();
    const verified = await stranger.post('/api/verify-email', {
      token: tokenIn(await mailTo(email)),
    });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ user: { email, isEmailVerified: true } });
  });

  it("answers a wrong code with the service's message and reason", async () => {
    const { client, email } = await registered('cody');
    const code = codeIn(await mailTo(email));
    const wrong = code === '000000' ? '111111' : '000000';
    const answer = await client.post('/api/verify-email', { code: wrong });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(errorBody(expect.any(String), 'CODE_INVALID'));
  });

  it('logs in and out', async () => {
    const { email } = await registered('otto');
    const client = browser();
    const login = await client.post('/api/login', { email, password });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ email });
    expect((await client.get('/api/user')).status).toBe(200);

    const logout = await client.post('/api/logout');
    expect(logout).toEqual({ status: 200, body: { message: 'Logged out' } });
    expect(client.jar.header()).toBe('');
    expect((await client.get('/api/user')).status).toBe(401);
  });

  it('makes the cookie held before login useless after it (rotation)', async () => {
    const { client, email } = await registered('rita');
    const before = client.jar.copy();
    expect((await client.post('/api/login', { email, password })).status).toBe(200);
    expect(client.jar.header()).not.toBe(before.header());

    expect((await client.get('/api/user')).status).toBe(200);
    const stale = browser(before);
    expect((await stale.get('/api/user')).status).toBe(401);
  });

  it('answers a wrong password and an unknown e-mail identically', async () => {
    const { email } = await registered('wendy');
    const wrongPassword = await browser().post('/api/login', { email, password: 'wrong-pass1' });
    const unknownEmail = await browser().post('/api/login', {
      email: uniqueEmail('nobody'),
      password: 'wrong-pass1',
    });
    expect(wrongPassword.status).toBe(401);
    // Identical but for the request id, which is each call's own.
    const withoutId = ({ status, body }: { status: number; body: unknown }) => ({
      status,
      body: { ...(body as object), requestId: 'each call its own' },
    });
    expect(withoutId(unknownEmail)).toEqual(withoutId(wrongPassword));
    expect(wrongPassword.body).toEqual(
      errorBody('Invalid username or password', 'INVALID_CREDENTIALS'),
    );
  });

  it('answers 429 after repeated failures, whether or not the password is then right', async () => {
    const { email } = await registered('gus');
    const client = browser();
    for (let i = 0; i < failuresPerAccount; i += 1) {
      expect((await client.post('/api/login', { email, password: 'wrong-pass1' })).status).toBe(
        401,
      );
    }
    const limited = errorBody('Too many attempts. Please try again later.', 'RATE_LIMITED');
    expect(await client.post('/api/login', { email, password: 'wrong-pass1' })).toEqual({
      status: 429,
      body: limited,
    });
    expect(await client.post('/api/login', { email, password })).toEqual({
      status: 429,
      body: limited,
    });
  });

  it('updates the profile and changes the password, ending the other sessions', async () => {
    const { client, email } = await registered('pat');
    const other = browser();
    expect((await other.post('/api/login', { email, password })).status).toBe(200);

    const profile = await client.put('/api/user/profile', { displayName: 'Patricia' });
    expect(profile).toMatchObject({ status: 200, body: { displayName: 'Patricia' } });

    const before = client.jar.header();
    const changed = await client.put('/api/user/password', {
      currentPassword: password,
      newPassword: 'new-password2',
    });
    expect(changed).toEqual({ status: 200, body: { message: 'Password changed' } });
    expect(client.jar.header()).not.toBe(before);
    expect((await client.get('/api/user')).status).toBe(200);
    expect((await other.get('/api/user')).status).toBe(401);
    expect((await browser().post('/api/login', { email, password: 'new-password2' })).status).toBe(
      200,
    );
  });

  it('resends the verification e-mail, one a minute per account', async () => {
    const { email } = await registered('rex');
    await mailTo(email);
    // Registering has just sent one: the auth service asks to wait.
    const tooSoon = await browser().post('/api/resend-verification', { email });
    expect(tooSoon).toEqual({
      status: 429,
      body: errorBody(expect.any(String), 'RESEND_TOO_SOON'),
    });
    // An unknown address gets the same success as a real one, revealing nothing.
    const unknown = await browser().post('/api/resend-verification', {
      email: uniqueEmail('nobody'),
    });
    expect(unknown).toEqual({ status: 200, body: { message: expect.any(String) } });
  });

  describe('over GraphQL', () => {
    it('logs in, answers me and logs out with the same cookie as REST', async () => {
      const { email } = await registered('gabe');
      const client = browser();
      expect((await client.graphql('{ me { id } }')).body).toEqual({ data: { me: null } });

      const login = await client.graphql(
        'mutation ($email: String!, $password: String!) { login(email: $email, password: $password) { email isEmailVerified } }',
        { email, password },
      );
      expect(login.body).toEqual({ data: { login: { email, isEmailVerified: false } } });
      expect((await client.get('/api/user')).body).toMatchObject({ email });
      expect((await client.graphql('{ me { email } }')).body).toEqual({ data: { me: { email } } });

      expect((await client.graphql('mutation { logout }')).body).toEqual({
        data: { logout: true },
      });
      expect((await client.get('/api/user')).status).toBe(401);
    });

    it('reports a failed login with extensions.code and 401', async () => {
      const answer = await browser().graphql(
        'mutation { login(email: "nobody@example.com", password: "wrong-pass1") { id } }',
      );
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({
        errors: [
          { message: 'Invalid username or password', extensions: { code: 'INVALID_CREDENTIALS' } },
        ],
      });
    });

    it('registers and verifies', async () => {
      const client = browser();
      const email = uniqueEmail('gwen');
      const registration = await client.graphql(
        'mutation ($input: RegisterInput!) { register(input: $input) { message user { email } } }',
        { input: { email, displayName: 'Gwen', password } },
      );
      expect(registration.body).toMatchObject({ data: { register: { user: { email } } } });
      const verified = await client.graphql(
        'mutation ($code: String) { verifyEmail(code: $code) { isEmailVerified } }',
        { code: codeIn(await mailTo(email)) },
      );
      expect(verified.body).toEqual({ data: { verifyEmail: { isEmailVerified: true } } });
    });

    it("refuses a GET with a simple content type (Apollo's CSRF prevention)", async () => {
      const response = await fetch(url('/graphql?query=%7Bme%7Bid%7D%7D'), {
        headers: { 'content-type': 'text/plain' },
      });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { errors: Array<{ message: string }> };
      expect(body.errors[0]?.message).toMatch(/Cross-Site Request Forgery/);
    });
  });
});
