import { createMemoryStore } from '../src';
import { describeLiveStoreContract } from './live-store.contract';

describeLiveStoreContract('memory', async () => {
  const store = createMemoryStore();
  return {
    store,
    // One process holds one store: every "client" is the same one.
    connectAnother: async () => store,
    cleanup: () => store.close(),
  };
});
