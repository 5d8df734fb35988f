import { randomUUID } from 'node:crypto';
import { createKafkaBus } from '@underdog/bus';
import { createLogger } from '@underdog/kit';
import { createRedisStore } from '@underdog/store';
import { startTcpProxy } from '@underdog/test-support';
import { describeVoteSettlement } from './vote-settlement.suite';

const redisUrl = process.env.UNDERDOG_TEST_REDIS_URL;
const brokers = process.env.UNDERDOG_TEST_KAFKA_BROKERS;
if (!redisUrl || !brokers) {
  throw new Error('the harness must provide Redis and Kafka: run through the integration setup');
}

// The same rules on real servers: the settling and applying scripts as Lua on Redis, the votes
// on the harness's `game.votes` (shared, hence a tournament per test and reads filtered by it).
// The gateway reaches Redis through a TCP proxy the outage tests cut, as a failover cuts it.
describeVoteSettlement('Redis and Kafka', async () => {
  const keyPrefix = `vote-settle:${randomUUID()}:`;
  const store = await createRedisStore({ url: redisUrl, keyPrefix });
  const redis = new URL(redisUrl);
  const proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port) });
  const gatewayUrl = new URL(redisUrl);
  gatewayUrl.hostname = '127.0.0.1';
  gatewayUrl.port = String(proxy.port);
  const gatewayStore = await createRedisStore({ url: gatewayUrl.toString(), keyPrefix });
  const bus = createKafkaBus({
    brokers: brokers.split(','),
    clientId: 'vote-settlement-test',
    logger: createLogger({ service: 'vote-settlement-test', level: 'silent' }),
  });
  return {
    store,
    bus,
    // A real produce takes milliseconds, the first one (connecting) longer: a held one waits it out.
    produceTimeoutMs: 3_000,
    gatewayStore,
    outage: proxy,
    cleanup: async () => {
      proxy.restore();
      await bus.close();
      await gatewayStore.close();
      await store.close();
      await proxy.close();
    },
  };
});
