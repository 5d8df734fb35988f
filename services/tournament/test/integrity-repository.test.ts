import { createMemoryDocumentStore } from '@underdog/documents';
import { integrityRepositoryContract } from './integrity-repository.contract';

integrityRepositoryContract('the memory store', async () => {
  const store = createMemoryDocumentStore();
  return { store, close: () => store.close() };
});
