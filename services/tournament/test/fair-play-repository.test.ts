import { createMemoryDocumentStore } from '@underdog/documents';
import { fairPlayRepositoryContract } from './fair-play-repository.contract';

fairPlayRepositoryContract('the memory store', async () => {
  const store = createMemoryDocumentStore();
  return { store, close: () => store.close() };
});
