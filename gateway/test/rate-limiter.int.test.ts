import { randomUUID } from 'node:crypto';
import { createRedisStore } from '@underdog/store';
import { RateLimiter } from '../src/rate-limiter';
import { describeRateLimiterContract } from './rate-limiter.contract';

const redisUrl = process.env.UNDERDOG_TEST_REDIS_URL;
if (!redisUrl) {
  throw new Error('UNDERDOG_TEST_REDIS_URL is not set: run through the integration global setup');
}
const url: string = redisUrl;

// The same behaviour on Redis (rate-limiter-flexible's RateLimiterRedis on the store's
// connection), where the counters are shared by every gateway replica. Keys expire with their
// two-second window (whole seconds, as the library sets Redis expiries; two, so a slow machine
// does not see a window end between a test's hits), so nothing needs deleting.
describeRateLimiterContract('redis', async () => {
  const store = await createRedisStore({ url, keyPrefix: `underdog-test:${randomUUID()}:` });
  return {
    store,
    windowMs: 2_000,
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    cleanup: () => store.close(),
  };
});

describe('RateLimiter keys on Redis', () => {
  it('counts under the store key prefix, then its own, so services can share one Redis', async () => {
    const prefix = `underdog-test:${randomUUID()}:`;
    const store = await createRedisStore({ url, keyPrefix: prefix });
    const raw = await createRedisStore({ url });
    try {
      await new RateLimiter(store).take([
        { key: 'login:ip:203.0.113.9', rule: { limit: 3, windowMs: 60_000 } },
      ]);
      const key = `${prefix}gateway:ratelimit:login:ip:203.0.113.9`;
      expect(await raw.get(key)).toBe('1');
      const ttl = await raw.ttlMs(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      await raw.del(key);
    } finally {
      await store.close();
      await raw.close();
    }
  });

  it('undoes a give-back that reached Redis after its window: no extra allowance', async () => {
    const store = await createRedisStore({ url, keyPrefix: `underdog-test:${randomUUID()}:` });
    try {
      const limiter = new RateLimiter(store);
      const bucket = { key: 'login:account:a@example.com', rule: { limit: 1, windowMs: 60_000 } };
      const slots = await limiter.take([bucket]);
      // The window ends between the take and the release (as if the release arrived late).
      await store.del(`gateway:ratelimit:${bucket.key}`);
      await slots.release();
      await limiter.take([bucket]);
      await expect(limiter.take([bucket])).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      await store.del(`gateway:ratelimit:${bucket.key}`);
    } finally {
      await store.close();
    }
  });
});
