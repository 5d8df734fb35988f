import { createMemoryInfrastructure } from '@underdog/platform';
import { silentLogger } from '@underdog/test-support';
import { auditLogContract } from './audit-log.contract';

auditLogContract('the memory bus and store', async () => {
  const infrastructure = createMemoryInfrastructure(silentLogger('audit-test'));
  return { infrastructure, close: async () => {} };
});
