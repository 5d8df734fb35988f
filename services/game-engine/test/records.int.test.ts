import { randomUUID } from 'node:crypto';
import { createMongoDocumentStore } from '@underdog/documents';
import { testInfra } from '@underdog/harness';
import { describeGameRecords } from './records-suite';

describeGameRecords('MongoDB wire', async () => {
  const store = await createMongoDocumentStore({
    url: testInfra().mongoUrl,
    dbName: `game_records_${randomUUID().replace(/-/g, '').slice(0, 12)}`,
  });
  return { store, cleanup: () => store.close() };
});
