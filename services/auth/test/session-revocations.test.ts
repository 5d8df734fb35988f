import { createHash, randomUUID } from 'node:crypto';
import type { Subscription } from '@underdog/bus';
import { topics } from '@underdog/platform';
import {
  EventHeader,
  Role,
  SessionRevocationSchema,
  fromBinary,
  type SessionRevocation,
} from '@underdog/proto';
import { waitFor } from '@underdog/test-support';
import { registerPlayer, startAuth, type TestAuth } from './support';

/**
 * Issue 37: whoever ends a session or changes what it may do tells every gateway, on
 * `session.revocations`, by the SHA-256 of the session ids (never the ids).
 */
const hashOf = (sessionId: string) => createHash('sha256').update(sessionId).digest('hex');

describe('session revocations', () => {
  let auth: TestAuth;
  let revocations: Array<{ key: string; type: string | undefined; value: SessionRevocation }>;
  let subscription: Subscription;

  beforeEach(async () => {
    auth = await startAuth();
    revocations = [];
    subscription = await auth.infrastructure.bus.subscribe({
      groupId: `test-session-revocations-${randomUUID()}`,
      topics: [topics.sessionRevocations.name],
      fromBeginning: true,
      handleBatch: async (batch) => {
        for (const message of batch) {
          revocations.push({
            key: message.key,
            type: message.headers[EventHeader.type],
            value: fromBinary(SessionRevocationSchema, message.value ?? new Uint8Array()),
          });
        }
      },
    });
  });
  afterEach(async () => {
    await subscription.stop();
    await auth.stop();
  });

  const next = (count: number) =>
    waitFor(() => revocations.length >= count && revocations, `${count} revocations`);

  it('announces a logout with the hash of the session it ended', async () => {
    const { user, sessionId } = await registerPlayer(auth);

    await auth.client.logout({ sessionId });

    const [revocation] = await next(1);
    expect(revocation).toMatchObject({
      key: user.id,
      type: 'underdog.events.v1.SessionLoggedOut',
      value: { userId: user.id, sessionHashes: [hashOf(sessionId)] },
    });
    expect(JSON.stringify(revocation?.value.sessionHashes)).not.toContain(sessionId);
  });

  it('announces every session a password change ended, not the one it opened', async () => {
    const { user, player, sessionId } = await registerPlayer(auth);
    const elsewhere = await auth.client.login({
      email: player.email,
      password: player.password,
      deviceId: 'tablet',
    });

    const changed = await auth.client.changePassword({
      sessionId,
      currentPassword: player.password,
      newPassword: 'new secret 2',
    });

    const [revocation] = await next(1);
    expect(revocation?.value.kind.case).toBe('passwordChanged');
    expect(revocation?.value.userId).toBe(user.id);
    expect([...(revocation?.value.sessionHashes ?? [])].sort()).toEqual(
      [hashOf(sessionId), hashOf(elsewhere.session?.id ?? '')].sort(),
    );
    expect(revocation?.value.sessionHashes).not.toContain(hashOf(changed.session?.id ?? ''));
  });

  it('announces a role change for every live session of the user', async () => {
    const { user, player, sessionId } = await registerPlayer(auth);
    const elsewhere = await auth.client.login({
      email: player.email,
      password: player.password,
      deviceId: 'tablet',
    });

    await auth.client.setRole({ email: player.email, role: Role.ADMIN });

    const [revocation] = await next(1);
    expect(revocation?.value.kind).toEqual({
      case: 'roleChanged',
      value: expect.objectContaining({ role: 'admin' }),
    });
    expect(revocation?.key).toBe(user.id);
    expect([...(revocation?.value.sessionHashes ?? [])].sort()).toEqual(
      [hashOf(sessionId), hashOf(elsewhere.session?.id ?? '')].sort(),
    );
  });

  it('announces nothing for a logout of a session it does not know', async () => {
    await auth.client.logout({ sessionId: 'no-such-session' });
    const { sessionId } = await registerPlayer(auth);
    await auth.client.logout({ sessionId });

    // The known one's revocation is the marker that the unknown one published nothing.
    const all = await next(1);
    expect(all).toHaveLength(1);
    expect(all[0]?.value.sessionHashes).toEqual([hashOf(sessionId)]);
  });
});
