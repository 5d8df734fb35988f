import { ConfigError } from '@underdog/kit';
import { Role } from '@underdog/proto';
import { Code } from '@underdog/rpc';
import { usersCollection } from '../src/adapters/users';
import { runCli } from '../src/cli';
import { authConfig } from '../src/config';
import { createReplica, registerPlayer, rpcFailure, startAuth, type TestAuth } from './support';

const adminEnv = { ADMIN_EMAIL: 'Boss@Example.com', ADMIN_PASSWORD: 'first admin 1' };

describe('the first admin', () => {
  let auth: TestAuth;
  afterEach(() => auth.stop());

  const usersWith = (email: string) =>
    auth.infrastructure.documents.collection(usersCollection).find({ email });

  it('is created at start as a verified admin who can log in', async () => {
    auth = await startAuth({ env: adminEnv });

    const login = await auth.client.login({
      email: 'boss@example.com',
      password: 'first admin 1',
      deviceId: '',
    });

    expect(login.user).toMatchObject({
      email: 'boss@example.com',
      username: 'boss',
      displayName: 'Admin',
      role: Role.ADMIN,
      isEmailVerified: true,
    });
    expect(auth.mailbox.raw).toHaveLength(0);
  });

  it('is created once, however many replicas start, at once or later', async () => {
    auth = await startAuth();
    const replicas = await Promise.all([1, 2, 3].map(() => createReplica(auth, adminEnv)));

    await Promise.all(replicas.map((replica) => replica.start()));
    const restarted = await createReplica(auth, adminEnv);
    await restarted.start();

    const admins = await usersWith('boss@example.com');
    expect(admins).toHaveLength(1);
    expect(admins[0]?.role).toBe('admin');
  });

  it('is promoted when the account exists, keeping its password', async () => {
    auth = await startAuth();
    const { player } = await registerPlayer(auth, {
      email: 'boss@example.com',
      password: 'chosen by me 7',
    });

    await (await createReplica(auth, adminEnv)).start();

    const login = await auth.client.login({
      email: player.email,
      password: 'chosen by me 7',
      deviceId: '',
    });
    expect(login.user?.role).toBe(Role.ADMIN);
    expect(auth.userEvents.at(-1)?.value.kind).toEqual({
      case: 'roleChanged',
      value: expect.objectContaining({ role: 'admin' }),
    });
  });

  it('needs both ADMIN_EMAIL and ADMIN_PASSWORD, or neither, and a valid password', () => {
    expect(authConfig({}).admin).toBeUndefined();
    expect(() => authConfig({ ADMIN_EMAIL: 'boss@example.com' })).toThrow(ConfigError);
    expect(() => authConfig({ ADMIN_PASSWORD: 'first admin 1' })).toThrow(ConfigError);
    expect(() => authConfig({ ADMIN_EMAIL: 'boss@example.com', ADMIN_PASSWORD: 'short' })).toThrow(
      /ADMIN_PASSWORD: Password must be at least 8 characters/,
    );
    expect(authConfig(adminEnv).admin).toEqual({
      email: 'boss@example.com',
      password: 'first admin 1',
      displayName: 'Admin',
    });
  });
});

describe('roles', () => {
  let auth: TestAuth;
  beforeEach(async () => {
    auth = await startAuth();
  });
  afterEach(() => auth.stop());

  it('grants and revokes the admin role with SetRole, announcing each change', async () => {
    const { player, sessionId } = await registerPlayer(auth, { email: 'ivy@example.com' });

    const granted = await auth.client.setRole({ email: 'IVY@example.com', role: Role.ADMIN });
    expect(granted.user?.role).toBe(Role.ADMIN);
    expect((await auth.client.getSession({ sessionId })).user?.role).toBe(Role.ADMIN);
    await auth.client.setRole({ email: player.email, role: Role.ADMIN });
    const revoked = await auth.client.setRole({ email: player.email, role: Role.USER });

    expect(revoked.user?.role).toBe(Role.USER);
    const roleEvents = auth.userEvents.filter((event) => event.value.kind.case === 'roleChanged');
    expect(roleEvents.map((event) => event.value.kind.value)).toEqual([
      expect.objectContaining({ role: 'admin' }),
      expect.objectContaining({ role: 'user' }),
    ]);
  });

  it('refuses an unknown user and an unspecified role', async () => {
    await registerPlayer(auth, { email: 'jack@example.com' });

    expect(
      await rpcFailure(auth.client.setRole({ email: 'ghost@example.com', role: Role.ADMIN })),
    ).toEqual({ code: Code.NotFound, reason: 'USER_NOT_FOUND', message: 'User not found' });
    expect(
      await rpcFailure(auth.client.setRole({ email: 'jack@example.com', role: Role.UNSPECIFIED })),
    ).toMatchObject({ code: Code.InvalidArgument, reason: 'VALIDATION_FAILED' });
  });
});

describe('the grant-admin CLI', () => {
  let auth: TestAuth;
  let out: string[];
  let err: string[];
  beforeEach(async () => {
    auth = await startAuth();
    out = [];
    err = [];
  });
  afterEach(() => auth.stop());

  const io = () => ({
    out: (line: string) => out.push(line),
    err: (line: string) => err.push(line),
  });
  const run = (args: string[]) => runCli(args, {}, { ...io(), transport: auth.transport });
  /** Over HTTP at AUTH_URL, as an operator runs it. */
  const runOverHttp = (args: string[], env: Record<string, string>) => runCli(args, env, io());

  it('makes a user an admin and says so', async () => {
    const { sessionId } = await registerPlayer(auth, { email: 'kim@example.com' });

    expect(await run(['grant-admin', 'kim@example.com'])).toBe(0);

    expect(out).toEqual(['kim@example.com (@kim) is now an admin']);
    expect((await auth.client.getSession({ sessionId })).user?.role).toBe(Role.ADMIN);
  });

  it('exits 1 with the reason when the call fails', async () => {
    expect(await run(['grant-admin', 'ghost@example.com'])).toBe(1);

    expect(err).toEqual(['grant-admin failed: User not found']);
  });

  it('exits 2 with the usage for anything else', async () => {
    expect(await run([])).toBe(2);
    expect(await run(['grant-admin'])).toBe(2);
    expect(await run(['make-admin', 'kim@example.com'])).toBe(2);
    expect(await run(['grant-admin', 'a@example.com', 'b@example.com'])).toBe(2);

    expect(err[0]).toMatch(/^usage: auth-cli grant-admin <email>/);
  });

  it('exits 2 when AUTH_URL is not a URL, and 1 when nothing answers there', async () => {
    expect(await runOverHttp(['grant-admin', 'kim@example.com'], { AUTH_URL: 'nowhere' })).toBe(2);
    expect(err.at(-1)).toMatch(/AUTH_URL/);

    const unreachable = {
      AUTH_URL: 'http://127.0.0.1:9',
      SERVICE_TOKEN_SECRET: 'a-service-token-secret-of-32-characters',
    };
    expect(await runOverHttp(['grant-admin', 'kim@example.com'], unreachable)).toBe(1);
    expect(err.at(-1)).toMatch(/^grant-admin failed: /);
  });

  it('exits 2 without SERVICE_TOKEN_SECRET: auth would refuse an unsigned call', async () => {
    const unsigned = { AUTH_URL: 'http://127.0.0.1:9' };
    expect(await runOverHttp(['grant-admin', 'kim@example.com'], unsigned)).toBe(2);
    expect(err.at(-1)).toMatch(/SERVICE_TOKEN_SECRET/);
  });
});
