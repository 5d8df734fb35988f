import { createMemoryStore } from '@underdog/store';
import { describeScriptsContract } from './scripts.contract';

// The TypeScript twins, over the memory store's Redis emulator.
describeScriptsContract('memory', async () => {
  const store = createMemoryStore();
  return { store, cleanup: () => store.close() };
});
