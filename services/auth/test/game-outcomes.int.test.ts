import { randomUUID } from 'node:crypto';
import { createMongoDocumentStore } from '@underdog/documents';
import { testInfra } from '@underdog/harness';
import { describeGameOutcomes } from './game-outcomes.contract';

describeGameOutcomes('MongoDB wire', () =>
  createMongoDocumentStore({
    url: testInfra().mongoUrl,
    dbName: `auth_outcomes_${randomUUID().replace(/-/g, '').slice(0, 12)}`,
  }),
);
