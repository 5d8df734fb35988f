import { startRestartableRedis, type RestartableRedis } from '@underdog/harness';
import { createRedisStore, type LiveStore } from '../src';

/*
 * Issue 38 point 5: a Redis that stops answering (SIGSTOP here; a full disk's fsync or a partition
 * that drops packets alike) must not hold the store's callers until TCP gives up. A Redis of this
 * test's own, since it is stopped.
 */
describe('the Redis store against a stalled server', () => {
  let redis: RestartableRedis;
  let store: LiveStore;

  beforeAll(async () => {
    redis = await startRestartableRedis({ appendfsync: 'none' });
    store = await createRedisStore({ url: redis.url, commandTimeoutMs: 300 });
  });
  afterAll(async () => {
    redis.resume();
    await store.close();
    await redis.stop();
  });

  it('rejects a command the server does not answer, and works again once it answers', async () => {
    await store.set('stall:key', 'before');
    redis.pause();
    try {
      await expect(store.get('stall:key')).rejects.toThrow(/timed out/i);
    } finally {
      redis.resume();
    }
    expect(await store.get('stall:key')).toBe('before');
  });
});
