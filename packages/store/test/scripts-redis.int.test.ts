import { randomUUID } from 'node:crypto';
import { createRedisStore } from '../src';
import { describeStoreScriptsContract } from './scripts.contract';

const url = process.env.UNDERDOG_TEST_REDIS_URL;
if (!url) {
  throw new Error('UNDERDOG_TEST_REDIS_URL is not set: run through the integration global setup');
}
const redisUrl: string = url;

// The Lua bodies, on the harness's real Redis; each case deletes the keys it wrote.
describeStoreScriptsContract('redis', async () => {
  const store = await createRedisStore({
    url: redisUrl,
    keyPrefix: `underdog-test:${randomUUID()}:`,
  });
  return {
    store,
    cleanup: async () => store.close(),
  };
});
