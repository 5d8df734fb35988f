import { createMemoryStore } from '../src';
import { describeStoreScriptsContract } from './scripts.contract';

// The TypeScript twins, over the memory store's Redis emulator.
describeStoreScriptsContract('memory', async () => {
  const store = createMemoryStore();
  return { store, cleanup: () => store.close() };
});
