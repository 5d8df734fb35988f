import { timestampDate } from '@underdog/proto';
import { Code } from '@underdog/rpc';
import {
  days,
  hours,
  registerPlayer,
  rpcFailure,
  startAuth,
  type TestAuth,
  noSession,
} from './support';

const invalidCredentials = {
  code: Code.Unauthenticated,
  reason: 'INVALID_CREDENTIALS',
  message: 'Invalid username or password',
};
describe('logging in and sessions', () => {
  let auth: TestAuth;
  beforeEach(async () => {
    auth = await startAuth();
  });
  afterEach(() => auth.stop());

  it('logs in an unverified user, whose user says so, with any case of the e-mail', async () => {
    const { player, user } = await registerPlayer(auth, { email: 'erin@example.com' });

    const login = await auth.client.login({
      email: ' ERIN@example.com',
      password: player.password,
      deviceId: 'laptop',
    });

    expect(login.user).toMatchObject({ id: user.id, isEmailVerified: false });
    expect(login.session).toMatchObject({ userId: user.id, deviceId: 'laptop' });
    const resolved = await auth.client.getSession({ sessionId: login.session?.id ?? '' });
    expect(resolved.user?.id).toBe(user.id);
  });

  it('gives the same answer for a wrong password and for an unknown e-mail', async () => {
    const { player } = await registerPlayer(auth);

    const wrongPassword = await rpcFailure(
      auth.client.login({ email: player.email, password: 'wrong password 1', deviceId: '' }),
    );
    const unknownEmail = await rpcFailure(
      auth.client.login({ email: 'nobody@example.com', password: player.password, deviceId: '' }),
    );

    expect(wrongPassword).toEqual(invalidCredentials);
    expect(unknownEmail).toEqual(invalidCredentials);
  });

  it('asks for the password before trying to log in', async () => {
    const failure = await rpcFailure(
      auth.client.login({ email: 'frank@example.com', password: '', deviceId: '' }),
    );

    expect(failure).toEqual({
      code: Code.InvalidArgument,
      reason: 'VALIDATION_FAILED',
      message: 'Password is required',
    });
  });

  it('opens a new session on every login (the old cookie is dropped, not reused)', async () => {
    const { player, sessionId: registered } = await registerPlayer(auth);
    const credentials = { email: player.email, password: player.password, deviceId: 'phone' };

    const first = await auth.client.login(credentials);
    const second = await auth.client.login(credentials);

    const ids = new Set([registered, first.session?.id, second.session?.id]);
    expect(ids.size).toBe(3);
  });

  it('ends a session on logout, and logging out twice is harmless', async () => {
    const { sessionId } = await registerPlayer(auth);

    await auth.client.logout({ sessionId });
    await auth.client.logout({ sessionId });

    expect(await rpcFailure(auth.client.getSession({ sessionId }))).toEqual(noSession);
  });

  it('does not know made-up or empty session ids', async () => {
    expect(await rpcFailure(auth.client.getSession({ sessionId: 'made-up' }))).toEqual(noSession);
    expect(await rpcFailure(auth.client.getSession({ sessionId: '' }))).toEqual(noSession);
  });

  it('ends a session after 24 hours without use, and each use extends it', async () => {
    const { sessionId } = await registerPlayer(auth);

    auth.clock.advance(hours(23));
    const used = await auth.client.getSession({ sessionId });
    expect(timestampDate(used.session!.expiresAt!)).toEqual(
      new Date(auth.clock.now().getTime() + hours(24)),
    );
    auth.clock.advance(hours(23));
    await auth.client.getSession({ sessionId });
    auth.clock.advance(hours(24));

    expect(await rpcFailure(auth.client.getSession({ sessionId }))).toEqual(noSession);
  });

  it('ends a session 30 days after it opened, however often it is used', async () => {
    const { sessionId } = await registerPlayer(auth);

    // Used every 20 hours: never idle for long, 35 uses in 700 hours.
    for (let use = 1; use <= 35; use += 1) {
      auth.clock.advance(hours(20));
      await auth.client.getSession({ sessionId });
    }
    const lastUse = await auth.client.getSession({ sessionId });
    expect(timestampDate(lastUse.session!.expiresAt!)).toEqual(
      new Date(timestampDate(lastUse.session!.createdAt!).getTime() + days(30)),
    );
    auth.clock.advance(hours(20));

    expect(await rpcFailure(auth.client.getSession({ sessionId }))).toEqual(noSession);
  });

  it('keeps the sessions of other users apart', async () => {
    const alice = await registerPlayer(auth, { email: 'alice@example.com' });
    const bob = await registerPlayer(auth, { email: 'bob@example.com' });

    await auth.client.logout({ sessionId: alice.sessionId });

    const stillBob = await auth.client.getSession({ sessionId: bob.sessionId });
    expect(stillBob.user?.email).toBe('bob@example.com');
  });
});
