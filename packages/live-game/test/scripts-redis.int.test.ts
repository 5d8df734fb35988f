import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { createMemoryStore, createRedisStore, type LiveStore } from '@underdog/store';
import { describeScriptsContract } from './scripts.contract';
import { scriptOperation, runOperations } from './scripts-operations';

const url = process.env.UNDERDOG_TEST_REDIS_URL;
if (!url) {
  throw new Error('UNDERDOG_TEST_REDIS_URL is not set: run through the integration global setup');
}
const redisUrl: string = url;

/** Deletes every key under `prefix`, looking past the adapter so nothing is hidden by it. */
async function deleteKeysUnder(prefix: string): Promise<void> {
  const admin = new Redis(redisUrl, { lazyConnect: true });
  await admin.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await admin.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await admin.quit();
  }
}

async function redisStore(): Promise<{ store: LiveStore; cleanup(): Promise<void> }> {
  const keyPrefix = `underdog-test:${randomUUID()}:`;
  const store = await createRedisStore({ url: redisUrl, keyPrefix });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await deleteKeysUnder(keyPrefix);
    },
  };
}

// The Lua bodies, on the harness's real Redis.
describeScriptsContract('redis', redisStore);

describe('game scripts: Lua and twin agree on random sequences', () => {
  it('the same replies and the same final keys on Redis and on the memory store', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(scriptOperation, { minLength: 1, maxLength: 40 }), async (ops) => {
        const redis = await redisStore();
        const memory = createMemoryStore();
        try {
          const onRedis = await runOperations(redis.store, ops);
          const onMemory = await runOperations(memory, ops);
          expect(onMemory).toEqual(onRedis);
        } finally {
          await redis.cleanup();
          await memory.close();
        }
      }),
      { numRuns: 200 },
    );
  });
});
