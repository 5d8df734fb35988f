import { createMemoryBus } from '@underdog/bus';
import { createMemoryStore } from '@underdog/store';
import { cuttableStore, describeVoteSettlement } from './vote-settlement.suite';

describeVoteSettlement('in-memory store and bus', async () => {
  const store = createMemoryStore();
  const bus = createMemoryBus();
  const link = cuttableStore(store);
  return {
    store,
    bus,
    produceTimeoutMs: 50,
    gatewayStore: link.store,
    outage: link.outage,
    cleanup: async () => {
      await bus.close();
      await store.close();
    },
  };
});
