import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { createMemoryStore, createRedisStore } from '@underdog/store';
import {
  counterOperations,
  describeRateLimiterScriptsContract,
  runCounterOperations,
} from './rate-limiter-scripts.contract';

const redisUrl = process.env.UNDERDOG_TEST_REDIS_URL;
if (!redisUrl) {
  throw new Error('UNDERDOG_TEST_REDIS_URL is not set: run through the integration global setup');
}
const url: string = redisUrl;

const redisStore = () => createRedisStore({ url, keyPrefix: `underdog-test:${randomUUID()}:` });

// The Lua bodies, on the harness's real Redis; each case deletes the keys it wrote.
describeRateLimiterScriptsContract('redis', async () => {
  const store = await redisStore();
  return { store, cleanup: () => store.close() };
});

/** Every reply the sequences must reach: each code of each script. */
const EVERY_CODE = [
  'take:1',
  'take:-1',
  'take:ERR',
  'release:0',
  'release:1',
  'release:ERR',
  'left:window',
  'left:-1',
  'left:-2',
];

describe('rate limiter scripts: Lua and twin agree on random sequences', () => {
  it('the same replies and the same counter on Redis and on the memory store', async () => {
    const redis = await redisStore();
    const memory = createMemoryStore();
    const seen = new Set<string>();
    try {
      await fc.assert(
        fc.asyncProperty(counterOperations, async (operations) => {
          const onRedis = await runCounterOperations(redis, operations);
          const onMemory = await runCounterOperations(memory, operations);
          expect(onMemory).toEqual(onRedis);
          for (const reply of onRedis.replies) seen.add(reply);
        }),
        { numRuns: 300, seed: 27 },
      );
    } finally {
      await redis.close();
      await memory.close();
    }
    // Not a test of the scripts: a check that the sequences reached every code they can return.
    expect(EVERY_CODE.filter((code) => !seen.has(code))).toEqual([]);
  });
});
