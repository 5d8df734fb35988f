import { startRedisSentinelGroup, type RedisSentinelGroup } from '@underdog/harness';
import { createRedisStore, incrementIfBelow, type LiveStore } from '../src';

/** Probes until `done` accepts the value, and returns it; fails naming `what` after `timeoutMs`. */
async function eventually<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The Redis adapter through Sentinel: a primary, a replica and one Sentinel of the test's own.
 * The primary is killed; the Sentinel promotes the replica and the same store goes on there.
 */
describe('redis store through Sentinel', () => {
  let group: RedisSentinelGroup;
  let store: LiveStore;

  beforeAll(async () => {
    group = await startRedisSentinelGroup({ replicas: 1, sentinels: 1 });
    store = await createRedisStore({
      // Only the credentials and database of the URL count; the Sentinel names the primary.
      url: 'redis://127.0.0.1:1/0',
      sentinel: { sentinels: group.sentinels, name: group.name },
    });
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await group?.stop();
  });

  it('follows the primary the Sentinels promote when the old one is killed', async () => {
    expect(await store.set('before', 'failover')).toBe(true);
    expect(await store.run(incrementIfBelow, ['counter'], [100])).toBe(1);
    // Replication is asynchronous: the kill comes once the replica has both writes.
    await group.replicated();

    const killed = await group.killPrimary();
    const promoted = await eventually(
      () => group.primaryNow().catch(() => killed),
      (port) => port !== killed,
      'the Sentinel to promote the replica',
      30_000,
    );
    expect(promoted).not.toBe(killed);

    // The same store, no restart: commands and scripts (loaded anew on the new primary) go on.
    const counted = await eventually(
      () => store.run(incrementIfBelow, ['counter'], [100]).catch(() => 0),
      (value) => value > 0,
      'a script on the new primary',
      30_000,
    );
    expect(counted).toBe(2);
    expect(await store.get('before')).toBe('failover');
  }, 90_000);
});
