import { createHash, randomUUID } from 'node:crypto';
import { testInfra } from '@underdog/harness';
import { createLogger } from '@underdog/kit';
import { createDistributedInfrastructure } from '@underdog/platform';
import { Role } from '@underdog/proto';
import { usersCollection } from '../src/adapters/users';
import {
  createReplica,
  minutes,
  registerPlayer,
  rpcFailure,
  startAuth,
  wrongCode,
  type TestAuth,
} from './support';

/**
 * The same service on the real adapters (Redis, Kafka, a MongoDB-wire server): what the
 * in-memory tests cannot show is that the Lua scripts, the dot-path filters and updates, the
 * Date equality of the resend check and the duplicate-key detection behave alike there.
 */
describe('the auth service on real servers', () => {
  let auth: TestAuth;
  const run = randomUUID().slice(0, 8);
  const email = (name: string) => `${name}-${run}@example.com`;
  const adminEmail = email('boss');

  beforeAll(async () => {
    const servers = testInfra();
    const logger = createLogger({ service: 'auth-int-test', level: 'silent' });
    const infrastructure = await createDistributedInfrastructure(
      {
        service: 'auth',
        instanceId: `int-test-${run}`,
        needs: ['documents', 'store', 'bus'],
        kafkaBrokers: servers.kafkaBrokers,
        redisUrl: servers.redisUrl,
        mongoUrl: servers.mongoUrl,
        mongoDb: `underdog_auth_${run}`,
      },
      logger,
    );
    auth = await startAuth({
      infrastructure,
      env: { ADMIN_EMAIL: adminEmail, ADMIN_PASSWORD: 'first admin 1' },
    });
  });
  afterAll(() => auth?.stop());

  const verifyCode = (code: string, sessionId: string) =>
    auth.client.verifyEmail({ proof: { case: 'code', value: code }, sessionId });

  it('registers with derived usernames, and refuses a taken e-mail', async () => {
    const first = await registerPlayer(auth, { email: `sam.${run}@one.example` });
    const second = await registerPlayer(auth, { email: `sam.${run}@two.example` });

    expect(first.user.username).toBe(`sam_${run}`);
    expect(second.user.username).toBe(`sam_${run}1`);
    expect(
      await rpcFailure(
        auth.client.register({ ...first.player, email: first.player.email.toUpperCase() }),
      ),
    ).toMatchObject({ reason: 'EMAIL_TAKEN' });
  });

  it('verifies with the code after wrong tries, and voids a code after five', async () => {
    const lucky = await registerPlayer(auth, { email: email('lucky') });
    await rpcFailure(verifyCode(wrongCode(lucky.code), lucky.sessionId));
    expect((await verifyCode(lucky.code, lucky.sessionId)).user?.isEmailVerified).toBe(true);
    const stored = await auth.infrastructure.documents
      .collection(usersCollection)
      .findById(lucky.user.id);
    expect(stored?.verification).toBeUndefined();

    const unlucky = await registerPlayer(auth, { email: email('unlucky') });
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await rpcFailure(verifyCode(wrongCode(unlucky.code), unlucky.sessionId));
    }
    expect(await rpcFailure(verifyCode(unlucky.code, unlucky.sessionId))).toMatchObject({
      reason: 'CODE_VOIDED',
    });
  });

  it('counts codes by e-mail apart on the real store, also for a verification stored before that counter', async () => {
    const owner = await registerPlayer(auth, { email: email('owner') });
    const users = auth.infrastructure.documents.collection(usersCollection);
    // A pending verification written before failedEmailAttempts existed has no such field.
    await users.updateOne(
      { id: owner.user.id },
      { $unset: { 'verification.failedEmailAttempts': true } },
    );
    for (let attempt = 1; attempt <= 6; attempt += 1) {
      await rpcFailure(
        auth.client.verifyEmail({
          proof: { case: 'code', value: wrongCode(owner.code) },
          email: owner.player.email,
        }),
      );
    }
    expect((await users.findById(owner.user.id))?.verification).toMatchObject({
      failedAttempts: 0,
      failedEmailAttempts: 5,
    });
    expect((await verifyCode(owner.code, owner.sessionId)).user?.isEmailVerified).toBe(true);
  });

  it('resends once a minute, and the new code and link work', async () => {
    const { player, sessionId, token } = await registerPlayer(auth, { email: email('resend') });
    expect(await rpcFailure(auth.client.resendVerification({ email: player.email }))).toMatchObject(
      { reason: 'RESEND_TOO_SOON' },
    );
    auth.clock.advance(minutes(1));
    // The live store's half of the limit runs on Redis's clock, which the test cannot move.
    const throttle = `auth:resend:${createHash('sha256').update(player.email).digest('hex')}`;
    expect(await auth.infrastructure.store.del(throttle)).toBe(1);

    const stored = await auth.infrastructure.documents
      .collection(usersCollection)
      .findOne({ email: player.email });
    expect(stored?.emailVerificationSentAt).toBeInstanceOf(Date);
    const resent = await auth.client.resendVerification({ email: player.email });
    expect(resent.message).toBe('A new verification email has been sent.');

    const mail = await auth.mailbox.next(player.email);
    expect(mail.token).not.toBe(token);
    const verified = await auth.client.verifyEmail({
      proof: { case: 'token', value: mail.token },
      sessionId,
    });
    expect(verified.user?.isEmailVerified).toBe(true);
  });

  it('keeps sessions in Redis: rotation, password change, logout', async () => {
    const { player, sessionId } = await registerPlayer(auth, { email: email('sessions') });
    const other = await auth.client.login({ ...player, deviceId: 'tablet' });
    expect(other.session?.id).not.toBe(sessionId);

    const changed = await auth.client.changePassword({
      sessionId,
      currentPassword: player.password,
      newPassword: 'new secret 2',
    });
    for (const ended of [sessionId, other.session?.id ?? '']) {
      expect(await rpcFailure(auth.client.getSession({ sessionId: ended }))).toMatchObject({
        reason: 'NO_SESSION',
      });
    }
    const fresh = changed.session?.id ?? '';
    expect((await auth.client.getSession({ sessionId: fresh })).user?.email).toBe(player.email);

    await auth.client.logout({ sessionId: fresh });
    expect(await rpcFailure(auth.client.getSession({ sessionId: fresh }))).toMatchObject({
      reason: 'NO_SESSION',
    });
  });

  it("keeps the session's claims in Redis: GetSessionActor, rewritten on verification", async () => {
    const { player, user, sessionId, code } = await registerPlayer(auth, {
      email: email('claims'),
    });
    const other = await auth.client.login({ ...player, deviceId: 'tablet' });
    const before = await auth.client.getSessionActor({ sessionId: other.session?.id ?? '' });
    expect(before.actor).toMatchObject({ userId: user.id, role: 'user', isEmailVerified: false });

    await auth.client.verifyEmail({ proof: { case: 'code', value: code }, sessionId });

    for (const id of [sessionId, other.session?.id ?? '']) {
      const { actor } = await auth.client.getSessionActor({ sessionId: id });
      expect(actor).toMatchObject({ userId: user.id, username: user.username });
      expect(actor?.isEmailVerified).toBe(true);
    }
    await auth.client.logout({ sessionId });
    expect(await rpcFailure(auth.client.getSessionActor({ sessionId }))).toMatchObject({
      reason: 'NO_SESSION',
    });
  });

  it('created the first admin at start, and creates one once when replicas race', async () => {
    const started = await auth.client.login({
      email: adminEmail,
      password: 'first admin 1',
      deviceId: '',
    });
    expect(started.user).toMatchObject({ role: Role.ADMIN, isEmailVerified: true });

    const raceEmail = email('race');
    const env = { ADMIN_EMAIL: raceEmail, ADMIN_PASSWORD: 'first admin 1' };
    const replicas = await Promise.all([1, 2].map(() => createReplica(auth, env)));
    await Promise.all(replicas.map((replica) => replica.start()));

    const admins = await auth.infrastructure.documents
      .collection(usersCollection)
      .find({ email: raceEmail });
    expect(admins).toHaveLength(1);
    expect(admins[0]).toMatchObject({ role: 'admin', isEmailVerified: true });
  });
});
