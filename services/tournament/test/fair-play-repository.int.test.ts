import { randomUUID } from 'node:crypto';
import { createMongoDocumentStore } from '@underdog/documents';
import { testInfra } from '@underdog/harness';
import { fairPlayRepositoryContract } from './fair-play-repository.contract';

fairPlayRepositoryContract('MongoDB (FerretDB)', async () => {
  const store = await createMongoDocumentStore({
    url: testInfra().mongoUrl,
    dbName: `fair-play-${randomUUID()}`,
  });
  return { store, close: () => store.close() };
});
