import { createMemoryStore } from '@underdog/store';
import { describeHeldVotesContract } from './held-votes.contract';
import { describeScriptsContract } from './scripts.contract';
import { describeSlotsContract } from './slots.contract';

// The TypeScript twins, over the memory store's Redis emulator.
describeScriptsContract('memory', async () => {
  const store = createMemoryStore();
  return { store, cleanup: () => store.close() };
});

// A vote cast in time and not recorded, held until its resend (docs/adr/0009, 7).
describeHeldVotesContract('memory', async () => {
  const store = createMemoryStore();
  return { store, cleanup: () => store.close() };
});

// A game's vote slots (docs/adr/0012), one slot (the layout of before) and four.
for (const slots of [1, 4]) {
  describeSlotsContract(
    'memory',
    async () => {
      const store = createMemoryStore();
      return { store, cleanup: () => store.close() };
    },
    slots,
  );
}
