import { randomUUID } from 'node:crypto';
import { testInfra } from '@underdog/harness';
import { createDistributedInfrastructure } from '@underdog/platform';
import { silentLogger } from '@underdog/test-support';
import { auditLogContract } from './audit-log.contract';

auditLogContract('Kafka and MongoDB (FerretDB)', async () => {
  const infra = testInfra();
  const infrastructure = await createDistributedInfrastructure(
    {
      service: 'tournament',
      instanceId: `audit-${randomUUID()}`,
      needs: ['documents', 'bus'],
      kafkaBrokers: infra.kafkaBrokers,
      mongoUrl: infra.mongoUrl,
      mongoDb: `audit-${randomUUID()}`,
    },
    silentLogger('audit-int-test'),
  );
  return { infrastructure, close: async () => {} };
});
