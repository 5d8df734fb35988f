import { createMemoryStore } from '@underdog/store';
import { describeRateLimiterContract } from './rate-limiter.contract';

// rate-limiter-flexible's RateLimiterMemory (standalone) measures its windows with Date.now and
// ends them with timers: both are Jest's fake ones here, moved by the test instead of waited for.
describeRateLimiterContract('memory', async () => {
  jest.useFakeTimers({
    now: Date.parse('2030-01-01T00:00:00.000Z'),
    doNotFake: ['nextTick', 'queueMicrotask'],
  });
  const store = createMemoryStore({ now: () => Date.now() });
  return {
    store,
    windowMs: 15 * 60_000,
    wait: async (ms) => {
      jest.advanceTimersByTime(ms);
    },
    cleanup: async () => {
      await store.close();
      jest.useRealTimers();
    },
  };
});
