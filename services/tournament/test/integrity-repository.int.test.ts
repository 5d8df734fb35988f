import { randomUUID } from 'node:crypto';
import { createMongoDocumentStore } from '@underdog/documents';
import { testInfra } from '@underdog/harness';
import { integrityRepositoryContract } from './integrity-repository.contract';

integrityRepositoryContract('MongoDB (FerretDB)', async () => {
  const store = await createMongoDocumentStore({
    url: testInfra().mongoUrl,
    dbName: `integrity-${randomUUID()}`,
  });
  return { store, close: () => store.close() };
});
