import { createMemoryStore } from '@underdog/store';
import { describeDisqualificationContract } from './disqualification.contract';

// The TypeScript twin, over the memory store's Redis emulator.
describeDisqualificationContract('memory', async () => {
  const store = createMemoryStore();
  return { store, cleanup: () => store.close() };
});
