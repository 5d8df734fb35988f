import { randomUUID } from 'node:crypto';
import { testInfra } from '@underdog/harness';
import { createRedisStore } from '@underdog/store';
import { describeDisqualificationContract } from './disqualification.contract';

// The Lua, on the harness's Redis (each case under keys of its own).
describeDisqualificationContract('Redis', async () => {
  const store = await createRedisStore({
    url: testInfra().redisUrl,
    keyPrefix: `underdog-test:${randomUUID()}:`,
  });
  return { store, cleanup: () => store.close() };
});
