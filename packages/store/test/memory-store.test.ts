import { testClock } from '@underdog/test-support';
import { createMemoryStore } from '../src';
import { describeLiveStoreContract } from './live-store.contract';

describeLiveStoreContract('memory', async () => {
  // The store's clock is the test's: a TTL lapses when the contract lets time pass, never on a
  // busy machine between a write and its check.
  const clock = testClock();
  const store = createMemoryStore({ now: () => clock.now().getTime() });
  return {
    store,
    // One process holds one store: every "client" is the same one.
    connectAnother: async () => store,
    cleanup: () => store.close(),
    passTime: async (ms) => clock.advance(ms),
  };
});
