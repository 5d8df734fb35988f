import { Role } from '@underdog/proto';
import { sha256 } from '../src/adapters/secrets';
import { UsersRepository } from '../src/adapters/users';
import { hours, registerPlayer, rpcFailure, startAuth, type TestAuth, noSession } from './support';

describe('GetSessionActor: the session as an actor, from the session record', () => {
  let auth: TestAuth;
  beforeEach(async () => {
    auth = await startAuth();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await auth.stop();
  });

  const actorOf = async (sessionId: string) =>
    (await auth.client.getSessionActor({ sessionId })).actor;

  it("answers the user's id, username, role and verification without reading the user", async () => {
    const { user, sessionId } = await registerPlayer(auth);
    const userReads = jest.spyOn(UsersRepository.prototype, 'byId');

    const answer = await auth.client.getSessionActor({ sessionId });

    expect(answer.actor).toMatchObject({
      userId: user.id,
      username: user.username,
      role: 'user',
      isEmailVerified: false,
      deviceId: '',
    });
    expect(answer.session).toMatchObject({ id: sessionId, userId: user.id });
    expect(userReads).not.toHaveBeenCalled();
  });

  it('extends the session like GetSession: used every 23 hours, it stays', async () => {
    const { sessionId } = await registerPlayer(auth);

    auth.clock.advance(hours(23));
    await actorOf(sessionId);
    auth.clock.advance(hours(23));

    expect((await actorOf(sessionId))?.userId).toBeTruthy();
    auth.clock.advance(hours(24) + 1);
    expect(await rpcFailure(actorOf(sessionId))).toEqual(noSession);
  });

  it('does not know a made-up, empty or logged-out session', async () => {
    const { sessionId } = await registerPlayer(auth);
    await auth.client.logout({ sessionId });

    expect(await rpcFailure(actorOf(sessionId))).toEqual(noSession);
    expect(await rpcFailure(actorOf(''))).toEqual(noSession);
    expect(await rpcFailure(actorOf('made-up'))).toEqual(noSession);
  });

  it("shows a verification in every session of the user, the other devices' too", async () => {
    const { player, sessionId, code } = await registerPlayer(auth);
    const other = await auth.client.login({
      email: player.email,
      password: player.password,
      deviceId: 'tablet',
    });
    const otherId = other.session?.id ?? '';
    expect((await actorOf(otherId))?.isEmailVerified).toBe(false);

    await auth.client.verifyEmail({ proof: { case: 'code', value: code }, sessionId });

    expect((await actorOf(sessionId))?.isEmailVerified).toBe(true);
    expect((await actorOf(otherId))?.isEmailVerified).toBe(true);
  });

  it('shows a role granted and revoked (the grant-admin CLI) in the sessions already open', async () => {
    const { player, sessionId } = await registerPlayer(auth);

    await auth.client.setRole({ email: player.email, role: Role.ADMIN });
    expect((await actorOf(sessionId))?.role).toBe('admin');

    await auth.client.setRole({ email: player.email, role: Role.USER });
    expect((await actorOf(sessionId))?.role).toBe('user');
  });

  it('rewrites the claims on a repeated SetRole (a retry after a failed rewrite)', async () => {
    const { player, sessionId } = await registerPlayer(auth);
    await auth.client.setRole({ email: player.email, role: Role.ADMIN });
    // The rewrite of this session did not happen (Redis failed after the user was saved).
    await auth.infrastructure.store.hSet(`auth:session:${sha256(sessionId)}`, { role: 'user' });

    await auth.client.setRole({ email: player.email, role: Role.ADMIN });

    expect((await actorOf(sessionId))?.role).toBe('admin');
  });

  it('answers a session record without claims (written before them) through the user, and repairs it', async () => {
    const { user, sessionId } = await registerPlayer(auth);
    const key = `auth:session:${sha256(sessionId)}`;
    await auth.infrastructure.store.hDel(key, 'username', 'role', 'verified');
    const userReads = jest.spyOn(UsersRepository.prototype, 'byId');

    expect(await actorOf(sessionId)).toMatchObject({ userId: user.id, username: user.username });
    expect(userReads).toHaveBeenCalledTimes(1);
    expect(await auth.infrastructure.store.hGetAll(key)).toMatchObject({
      username: user.username,
      role: 'user',
      verified: '0',
    });

    await actorOf(sessionId);
    expect(userReads).toHaveBeenCalledTimes(1);
  });

  it('repairs claims that differ from the user on the next GetSession', async () => {
    const { sessionId } = await registerPlayer(auth);
    const key = `auth:session:${sha256(sessionId)}`;
    await auth.infrastructure.store.hSet(key, { role: 'admin' });
    expect((await actorOf(sessionId))?.role).toBe('admin');

    await auth.client.getSession({ sessionId });

    expect((await actorOf(sessionId))?.role).toBe('user');
  });
});
