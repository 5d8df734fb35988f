import { createMemoryDocumentStore } from '../src';
import { describeDocumentStoreContract } from './document-store.contract';

describeDocumentStoreContract('memory', async () => {
  const store = createMemoryDocumentStore();
  return {
    store,
    // One process holds one store: every "replica" shares it.
    connectAnother: async () => store,
    cleanup: () => store.close(),
  };
});
