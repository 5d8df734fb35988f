import { createMemoryBus } from '@underdog/bus';
import { createMemoryStore } from '@underdog/store';
import { describeVoteSettlement } from './vote-settlement.suite';

describeVoteSettlement('in-memory store and bus', async () => {
  const store = createMemoryStore();
  const bus = createMemoryBus();
  return {
    store,
    bus,
    produceTimeoutMs: 50,
    cleanup: async () => {
      await bus.close();
      await store.close();
    },
  };
});
