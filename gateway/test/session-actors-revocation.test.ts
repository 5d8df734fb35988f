import { createMemoryBus } from '@underdog/bus';
import { createLogger, type Component } from '@underdog/kit';
import { allTopics, topics } from '@underdog/platform';
import {
  SessionRevocationSchema,
  create,
  encodeEvent,
  timestampFromDate,
  timestampFromMs,
} from '@underdog/proto';
import { testClock, waitFor } from '@underdog/test-support';
import type { GatewayClients } from '../src';
import { SessionActors, sessionHash } from '../src/session-actors';

/**
 * The gateway's side of `session.revocations` (issue 37): what a revocation does to the session
 * cache and to the sockets' question "was my session ended since I read it?", and a consumer
 * that survives what it cannot read.
 */
const logger = createLogger({ service: 'session-actors-revocation-test', level: 'silent' });
const HOUR = 60 * 60_000;

function fakeAuth(clock: ReturnType<typeof testClock>) {
  const calls: string[] = [];
  const auth = {
    getSessionActor: ({ sessionId }: { sessionId?: string }) => {
      calls.push(sessionId ?? '');
      return Promise.resolve({
        actor: { userId: 'user-ann', username: 'ann', role: 'user', isEmailVerified: true },
        session: {
          id: sessionId,
          expiresAt: timestampFromMs(clock.now().getTime() + HOUR),
        },
      });
    },
  } as unknown as GatewayClients['auth'];
  return { auth, calls };
}

describe('SessionActors and session.revocations', () => {
  it('asks auth again for a cached session once it is revoked, and tells its sockets', async () => {
    const clock = testClock();
    const { auth, calls } = fakeAuth(clock);
    const actors = new SessionActors(auth, { now: () => clock.now().getTime() });
    const openedAt = clock.now().getTime();
    await actors.lookUp('session-ann');
    await actors.lookUp('session-ann');
    expect(calls).toHaveLength(1);
    expect(actors.endedSince('session-ann', openedAt)).toBe(false);

    clock.advance(1_000);
    actors.revoked([sessionHash('session-ann')]);

    expect(actors.endedSince('session-ann', openedAt)).toBe(true);
    // A socket that read it again after the revocation is not sent back again.
    expect(actors.endedSince('session-ann', clock.now().getTime() + 1)).toBe(false);
    await actors.lookUp('session-ann');
    expect(calls).toHaveLength(2);
  });

  it('counts a session past its last known expiry as ended for the sockets that read it before', async () => {
    const clock = testClock();
    const { auth, calls } = fakeAuth(clock);
    const actors = new SessionActors(auth, {
      now: () => clock.now().getTime(),
      ttlMs: 2 * HOUR,
      endedMemoryMs: 2 * HOUR,
    });
    const openedAt = clock.now().getTime();
    await actors.lookUp('session-ann');

    clock.advance(HOUR - 1);
    expect(actors.endedSince('session-ann', openedAt)).toBe(false);
    clock.advance(1);
    expect(actors.endedSince('session-ann', openedAt)).toBe(true);
    // Nor is the cached actor served past it.
    await actors.lookUp('session-ann');
    expect(calls).toHaveLength(2);
  });

  it('applies the revocations it can read and skips the ones it cannot, without stopping', async () => {
    const bus = createMemoryBus({ logger });
    await bus.ensureTopics(allTopics);
    const clock = testClock();
    const actors = new SessionActors(fakeAuth(clock).auth, { now: () => clock.now().getTime() });
    const consumer: Component = actors.revocationConsumer({
      bus,
      groupId: 'test-session-actors-revocations',
      logger,
    });
    await consumer.start?.();
    try {
      const openedAt = clock.now().getTime();
      await bus.publish(topics.sessionRevocations.name, [
        { key: 'user-ann', value: new Uint8Array([0xff, 0xff, 0xff]) },
        { key: 'user-ann', value: null },
        encodeEvent(
          SessionRevocationSchema,
          create(SessionRevocationSchema, {
            userId: 'user-ann',
            occurredAt: timestampFromDate(clock.now()),
            sessionHashes: [sessionHash('session-ann')],
            kind: { case: 'loggedOut', value: {} },
          }),
          { key: 'user-ann' },
        ),
      ]);

      await waitFor(() => actors.endedSince('session-ann', openedAt), 'the revocation applied');
      expect(actors.endedSince('session-ben', openedAt)).toBe(false);
    } finally {
      await consumer.stop?.();
      await bus.close();
    }
  });
});
