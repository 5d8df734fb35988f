import { createMemoryStore } from '@underdog/store';
import { describeRateLimiterScriptsContract } from './rate-limiter-scripts.contract';

// The TypeScript twins, over the memory store's Redis emulator on a fixed clock.
describeRateLimiterScriptsContract('memory', async () => {
  const store = createMemoryStore({ now: () => Date.parse('2030-01-01T00:00:00.000Z') });
  return { store, cleanup: () => store.close() };
});
