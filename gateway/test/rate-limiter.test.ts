import { createMemoryStore } from '@underdog/store';
import { describeRateLimiterContract } from './rate-limiter.contract';

describeRateLimiterContract('memory', async () => {
  let now = Date.parse('2030-01-01T00:00:00.000Z');
  const store = createMemoryStore({ now: () => now });
  return {
    store,
    windowMs: 15 * 60_000,
    wait: async (ms) => {
      now += ms;
    },
    cleanup: () => store.close(),
  };
});
