import { createMemoryDocumentStore } from '@underdog/documents';
import { describeGameRecords } from './records-suite';

describeGameRecords('memory', async () => {
  const store = createMemoryDocumentStore();
  return { store, cleanup: () => store.close() };
});
