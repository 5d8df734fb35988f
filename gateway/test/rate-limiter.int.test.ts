import { randomUUID } from 'node:crypto';
import { createRedisStore } from '@underdog/store';
import { describeRateLimiterContract } from './rate-limiter.contract';

const redisUrl = process.env.UNDERDOG_TEST_REDIS_URL;
if (!redisUrl) {
  throw new Error('UNDERDOG_TEST_REDIS_URL is not set: run through the integration global setup');
}

// The same behaviour on Redis, where the counters are shared by every gateway replica and the
// slot release runs as Lua. Keys expire with their short window, so nothing needs deleting.
describeRateLimiterContract('redis', async () => {
  const store = await createRedisStore({
    url: redisUrl,
    keyPrefix: `underdog-test:${randomUUID()}:`,
  });
  return {
    store,
    windowMs: 300,
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    cleanup: () => store.close(),
  };
});
