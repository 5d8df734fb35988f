import {
  cookieFrom,
  jsonHeaders,
  mail,
  startTestGateway,
  validPassword,
  type TestGateway,
  errorBody,
} from './support';

const post = (gateway: TestGateway, path: string, body: unknown, headers = {}) =>
  fetch(gateway.url(path), {
    method: 'POST',
    headers: { ...jsonHeaders, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const login = (gateway: TestGateway, password = validPassword, headers = {}) =>
  post(gateway, '/api/login', { email: 'ann@example.com', password }, headers);

describe('REST accounts at the edge (stub auth service)', () => {
  let gateway: TestGateway;
  beforeEach(async () => {
    gateway = await startTestGateway();
  });
  afterEach(() => gateway.stop());

  describe('body validation', () => {
    it('names every missing or ill-typed field in a 400', async () => {
      const response = await post(gateway, '/api/register', { email: 42, displayName: 'Ann' });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(
        errorBody('email must be a string; password is required', 'BAD_REQUEST'),
      );
      expect(gateway.calls.register).toHaveLength(0);
    });

    it('wants a JSON object', async () => {
      const response = await post(gateway, '/api/login', [1, 2]);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(
        errorBody('Request body must be a JSON object', 'BAD_REQUEST'),
      );
    });

    it('answers malformed JSON with 400 BAD_REQUEST', async () => {
      const response = await post(gateway, '/api/login', '{"email":');
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(errorBody('Malformed request', 'BAD_REQUEST'));
    });

    it('answers a body over 100 kB with 413 PAYLOAD_TOO_LARGE', async () => {
      const response = await post(gateway, '/api/login', { email: 'x'.repeat(110_000) });
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual(
        errorBody('Request body too large', 'PAYLOAD_TOO_LARGE'),
      );
    });

    it('wants exactly one of code and token to verify an e-mail', async () => {
      const neither = await post(gateway, '/api/verify-email', { email: 'ann@example.com' });
      expect(neither.status).toBe(400);
      expect(await neither.json()).toEqual(errorBody('code or token is required', 'BAD_REQUEST'));
      const both = await post(gateway, '/api/verify-email', { code: '123456', token: 'abc' });
      expect(both.status).toBe(400);
      expect(await both.json()).toMatchObject({ message: 'Send code or token, not both' });
    });

    it("passes the service's domain errors on with their reason as code", async () => {
      const response = await post(gateway, '/api/verify-email', {
        email: 'ann@example.com',
        code: '000000',
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(errorBody('Invalid verification code', 'CODE_INVALID'));
    });
  });

  describe('the session cookie', () => {
    it('is set on login: HttpOnly, SameSite=Lax, Path=/, 30 days, not Secure over plain HTTP', async () => {
      const response = await login(gateway);
      expect(response.status).toBe(200);
      expect(response.headers.get('set-cookie')).toBe(
        'underdog_session=session-1; Max-Age=2592000; Path=/; HttpOnly; SameSite=Lax',
      );
      expect(await response.json()).toMatchObject({
        id: 'user-ann@example.com',
        email: 'ann@example.com',
        role: 'user',
        isEmailVerified: false,
        createdAt: '2030-01-01T00:00:00.000Z',
        gamesPlayed: 3,
        wins: 1,
        totalPrizes: 500,
        roundsWon: 0,
        firstWinDate: null,
      });
    });

    it('is __Host-underdog_session and Secure with COOKIE_SECURE=true', async () => {
      const secure = await startTestGateway({ env: { COOKIE_SECURE: 'true' } });
      try {
        const response = await login(secure);
        expect(response.headers.get('set-cookie')).toBe(
          '__Host-underdog_session=session-1; Max-Age=2592000; Path=/; HttpOnly; Secure; SameSite=Lax',
        );
        const me = await fetch(secure.url('/api/user'), {
          headers: { cookie: cookieFrom(response) },
        });
        expect(me.status).toBe(200);
      } finally {
        await secure.stop();
      }
    });

    it('identifies the user on GET /api/user and is cleared by logout', async () => {
      const cookie = cookieFrom(await login(gateway));
      const me = await fetch(gateway.url('/api/user'), { headers: { cookie } });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ email: 'ann@example.com' });

      const logout = await post(gateway, '/api/logout', {}, { cookie });
      expect(logout.status).toBe(200);
      expect(await logout.json()).toEqual({ message: 'Logged out' });
      expect(logout.headers.get('set-cookie')).toBe(
        'underdog_session=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax',
      );
      expect(gateway.calls.logout).toEqual(['session-1']);

      const after = await fetch(gateway.url('/api/user'), { headers: { cookie } });
      expect(after.status).toBe(401);
    });

    it('answers a visitor 401 on GET /api/user without asking the auth service', async () => {
      const response = await fetch(gateway.url('/api/user'));
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(errorBody('Not authenticated', 'UNAUTHENTICATED'));
      expect(gateway.calls.getSession).toHaveLength(0);
    });

    it('is cleared when the auth service no longer knows the session', async () => {
      const response = await fetch(gateway.url('/api/user'), {
        headers: { cookie: 'underdog_session=forgotten' },
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('set-cookie')).toMatch(/^underdog_session=; Max-Age=0;/);
    });

    it('rotates on login: the session the client came with is logged out', async () => {
      const before = cookieFrom(await login(gateway));
      const after = await login(gateway, validPassword, { cookie: before });
      expect(cookieFrom(after)).toBe('underdog_session=session-2');
      expect(gateway.calls.logout).toEqual(['session-1']);
      const stale = await fetch(gateway.url('/api/user'), { headers: { cookie: before } });
      expect(stale.status).toBe(401);
    });

    it('passes X-Device-ID on to register and login', async () => {
      await post(
        gateway,
        '/api/register',
        { email: 'bob@example.com', displayName: 'Bob', password: 'whatever1' },
        { 'x-device-id': 'device-bob' },
      );
      await login(gateway, validPassword, { 'x-device-id': 'device-ann' });
      expect(gateway.calls.register).toEqual([
        { email: 'bob@example.com', deviceId: 'device-bob' },
      ]);
      expect(gateway.calls.login).toEqual([{ email: 'ann@example.com', deviceId: 'device-ann' }]);
    });

    it('answers register with the message and the user, signed in', async () => {
      const response = await post(gateway, '/api/register', {
        email: 'bob@example.com',
        displayName: 'Bob',
        password: 'whatever1',
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        message: 'Account created! Check your e-mail for the verification code.',
        user: { email: 'bob@example.com', displayName: 'Bob' },
      });
      expect(cookieFrom(response)).toBe('underdog_session=session-1');
    });

    it('wants a session to update the profile', async () => {
      const anonymous = await fetch(gateway.url('/api/user/profile'), {
        method: 'PUT',
        headers: jsonHeaders,
        body: JSON.stringify({ displayName: 'Annie' }),
      });
      expect(anonymous.status).toBe(401);
      const cookie = cookieFrom(await login(gateway));
      const updated = await fetch(gateway.url('/api/user/profile'), {
        method: 'PUT',
        headers: { ...jsonHeaders, cookie },
        body: JSON.stringify({ displayName: 'Annie' }),
      });
      expect(updated.status).toBe(200);
      expect(await updated.json()).toMatchObject({ displayName: 'Annie' });
    });
  });

  describe('login throttling', () => {
    const limited = errorBody('Too many attempts. Please try again later.', 'RATE_LIMITED');

    it('answers 429 after the per-account failures, even to the right password', async () => {
      const strict = await startTestGateway({
        env: { RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT: '3' },
      });
      try {
        for (let i = 0; i < 3; i += 1)
          expect((await login(strict, 'wrong-guess1')).status).toBe(401);
        const wrong = await login(strict, 'wrong-guess1');
        const right = await login(strict, validPassword);
        expect([wrong.status, right.status]).toEqual([429, 429]);
        expect(await wrong.json()).toEqual(limited);
        expect(await right.json()).toEqual(limited);
        // The window is 15 minutes: the client may retry once it ends, not before.
        const retryAfter = Number(right.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(15 * 60);
        // The limited attempts never reached the auth service.
        expect(strict.calls.login).toHaveLength(3);
      } finally {
        await strict.stop();
      }
    });

    it('counts the account by its normalised e-mail', async () => {
      const strict = await startTestGateway({
        env: { RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT: '2' },
      });
      try {
        for (const email of ['ann@example.com', ' ANN@Example.com']) {
          await post(strict, '/api/login', { email, password: 'wrong-guess1' });
        }
        const response = await post(strict, '/api/login', {
          email: 'Ann@example.com',
          password: validPassword,
        });
        expect(response.status).toBe(429);
      } finally {
        await strict.stop();
      }
    });

    it('counts only failures: successful logins do not use up the allowance', async () => {
      const strict = await startTestGateway({
        env: { RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT: '2' },
      });
      try {
        for (let i = 0; i < 5; i += 1) expect((await login(strict)).status).toBe(200);
      } finally {
        await strict.stop();
      }
    });

    it('limits failures per client address across accounts', async () => {
      const strict = await startTestGateway({ env: { RATE_LIMIT_LOGIN_FAILURES_PER_IP: '2' } });
      try {
        for (const email of ['a@example.com', 'b@example.com']) {
          await post(strict, '/api/login', { email, password: 'wrong-guess1' });
        }
        const response = await post(strict, '/api/login', {
          email: 'c@example.com',
          password: 'wrong-guess1',
        });
        expect(response.status).toBe(429);
      } finally {
        await strict.stop();
      }
    });

    it('ignores X-Forwarded-For unless TRUST_PROXY says a proxy sets it', async () => {
      const env = { RATE_LIMIT_LOGIN_FAILURES_PER_IP: '1' };
      const attempt = (target: TestGateway, forwardedFor: string) =>
        post(
          target,
          '/api/login',
          { email: `${forwardedFor}@example.com`, password: 'wrong-guess1' },
          { 'x-forwarded-for': forwardedFor },
        );

      const direct = await startTestGateway({ env });
      const proxied = await startTestGateway({ env: { ...env, TRUST_PROXY: '1' } });
      try {
        expect((await attempt(direct, '203.0.113.1')).status).toBe(401);
        expect((await attempt(direct, '203.0.113.2')).status).toBe(429);

        expect((await attempt(proxied, '203.0.113.1')).status).toBe(401);
        expect((await attempt(proxied, '203.0.113.2')).status).toBe(401);
        expect((await attempt(proxied, '203.0.113.1')).status).toBe(429);
      } finally {
        await direct.stop();
        await proxied.stop();
      }
    });

    it('limits registrations, resends and verifications per client address', async () => {
      const strict = await startTestGateway({
        env: {
          RATE_LIMIT_REGISTRATIONS_PER_IP: '1',
          RATE_LIMIT_RESENDS_PER_IP: '1',
          RATE_LIMIT_VERIFICATIONS_PER_IP: '1',
        },
      });
      try {
        const register = (email: string) =>
          post(strict, '/api/register', { email, displayName: 'X', password: 'whatever1' });
        expect((await register('x@example.com')).status).toBe(200);
        expect((await register('y@example.com')).status).toBe(429);

        const resend = () => post(strict, '/api/resend-verification', { email: 'x@example.com' });
        expect((await resend()).status).toBe(200);
        expect((await resend()).status).toBe(429);

        const verify = (email: string) =>
          post(strict, '/api/verify-email', { email, code: '000000' });
        expect((await verify('x@example.com')).status).toBe(400);
        expect((await verify('y@example.com')).status).toBe(429);
      } finally {
        await strict.stop();
      }
    });

    it('limits verification attempts per account', async () => {
      const strict = await startTestGateway({
        env: { RATE_LIMIT_VERIFICATIONS_PER_ACCOUNT: '2' },
      });
      try {
        const verify = (email: string) =>
          post(strict, '/api/verify-email', { email, code: '000000' });
        expect((await verify('ann@example.com')).status).toBe(400);
        expect((await verify('ANN@example.com')).status).toBe(400);
        expect((await verify('ann@example.com')).status).toBe(429);
        expect((await verify('bob@example.com')).status).toBe(400);
      } finally {
        await strict.stop();
      }
    });
  });

  describe('the development mailbox', () => {
    it('lists the captured e-mails outside production', async () => {
      const response = await fetch(gateway.url('/api/dev/mailbox'));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual([{ ...mail, sentAt: mail.sentAt.toISOString() }]);
    });

    it('does not exist in production', async () => {
      const production = await startTestGateway({ nodeEnv: 'production' });
      try {
        const response = await fetch(production.url('/api/dev/mailbox'));
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual(errorBody('Not found', 'NOT_FOUND'));
      } finally {
        await production.stop();
      }
    });
  });
});
