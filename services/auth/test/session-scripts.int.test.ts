import { randomUUID } from 'node:crypto';
import { createRedisStore } from '@underdog/store';
import { describeSessionScriptsContract } from './session-scripts.contract';

const redisUrl = process.env.UNDERDOG_TEST_REDIS_URL;
if (!redisUrl) {
  throw new Error('UNDERDOG_TEST_REDIS_URL is not set: run through the integration global setup');
}

// The Lua bodies, on the harness's real Redis; each case deletes the keys it wrote.
describeSessionScriptsContract('redis', async () => {
  const store = await createRedisStore({
    url: redisUrl,
    keyPrefix: `underdog-test:${randomUUID()}:`,
  });
  return { store, cleanup: () => store.close() };
});
