import { createMemoryStore } from '@underdog/store';
import { describeSessionScriptsContract } from './session-scripts.contract';

// The TypeScript twins, over the memory store's Redis emulator on a fixed clock.
describeSessionScriptsContract('memory', async () => {
  const store = createMemoryStore({ now: () => Date.parse('2030-01-01T00:00:00.000Z') });
  return { store, cleanup: () => store.close() };
});
