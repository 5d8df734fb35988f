import { createKafkaBus, createMemoryBus, type EventBus } from '@underdog/bus';
import {
  createMongoDocumentStore,
  createMemoryDocumentStore,
  type DocumentStore,
} from '@underdog/documents';
import { ConfigError, type Component, type Logger, type Registry } from '@underdog/kit';
import {
  createMemoryStore,
  createRedisStore,
  type LiveStore,
  type RedisSentinelOptions,
} from '@underdog/store';
import { allTopics } from './topics';

export type InfrastructureNeed = 'bus' | 'store' | 'documents';

/**
 * The infrastructure ports a service uses. A service declares the ones it needs; in distributed
 * mode touching an undeclared one throws, so a service cannot quietly depend on a server its
 * deployment does not give it.
 */
export interface Infrastructure {
  readonly bus: EventBus;
  readonly store: LiveStore;
  readonly documents: DocumentStore;
  /** Connections as components: ping for readiness, close on stop. First in a process's group. */
  readonly components: Component[];
}

export function createMemoryInfrastructure(logger: Logger): Infrastructure {
  const bus = createMemoryBus({ logger });
  const store = createMemoryStore();
  const documents = createMemoryDocumentStore();
  return {
    bus,
    store,
    documents,
    components: [
      {
        name: 'memory-infrastructure',
        start: async () => {
          await bus.ensureTopics(allTopics);
          await documents.init();
        },
        stop: async () => {
          await bus.close();
          await store.close();
          await documents.close();
        },
      },
    ],
  };
}

export interface DistributedInfrastructureConfig {
  service: string;
  instanceId: string;
  needs: readonly InfrastructureNeed[];
  kafkaBrokers?: string[] | undefined;
  redisUrl?: string | undefined;
  /** Redis Sentinel (REDIS_SENTINELS): the primary is found through it; the URL gives credentials. */
  redisSentinel?: RedisSentinelOptions | undefined;
  /** REDIS_COMMAND_TIMEOUT_MS: a command unanswered by then rejects (the store's default if unset). */
  redisCommandTimeoutMs?: number | undefined;
  mongoUrl?: string | undefined;
  mongoDb: string;
  /** The Kafka consumers' group session timeout and heartbeat (the bus adapter's defaults if unset). */
  kafkaSessionTimeoutMs?: number | undefined;
  kafkaHeartbeatIntervalMs?: number | undefined;
  /** The process's metrics registry: the Kafka adapter reports its consumer lag there. */
  registry?: Registry;
}

const variableOf: Record<InfrastructureNeed, string> = {
  bus: 'KAFKA_BROKERS',
  store: 'REDIS_URL',
  documents: 'MONGO_URL',
};

/** Real adapters for the declared needs; Redis and MongoDB are connected before this resolves. */
export async function createDistributedInfrastructure(
  config: DistributedInfrastructureConfig,
  logger: Logger,
): Promise<Infrastructure> {
  const configured: Record<InfrastructureNeed, boolean> = {
    bus: Boolean(config.kafkaBrokers?.length),
    store: Boolean(config.redisUrl),
    documents: Boolean(config.mongoUrl),
  };
  const missing = config.needs.filter((need) => !configured[need]);
  if (missing.length > 0) {
    throw new ConfigError(
      missing.map(
        (need) => `${variableOf[need]}: required by the ${config.service} service (not set)`,
      ),
    );
  }

  const components: Component[] = [];
  let bus: EventBus | undefined;
  let store: LiveStore | undefined;
  let documents: DocumentStore | undefined;

  if (config.needs.includes('bus') && config.kafkaBrokers) {
    const kafka = createKafkaBus({
      brokers: config.kafkaBrokers,
      clientId: `${config.service}-${config.instanceId}`,
      logger,
      ...(config.kafkaSessionTimeoutMs ? { sessionTimeoutMs: config.kafkaSessionTimeoutMs } : {}),
      ...(config.kafkaHeartbeatIntervalMs
        ? { heartbeatIntervalMs: config.kafkaHeartbeatIntervalMs }
        : {}),
      ...(config.registry ? { registry: config.registry } : {}),
    });
    bus = kafka;
    components.push({
      name: 'kafka',
      start: () => kafka.ensureTopics(allTopics),
      stop: () => kafka.close(),
      isReady: () => kafka.ping().then(() => true),
    });
  }
  if (config.needs.includes('store') && config.redisUrl) {
    const redis = await createRedisStore({
      url: config.redisUrl,
      sentinel: config.redisSentinel,
      ...(config.redisCommandTimeoutMs ? { commandTimeoutMs: config.redisCommandTimeoutMs } : {}),
      onConnectionError: (error) => logger.warn({ err: error }, 'redis connection error'),
    });
    store = redis;
    components.push({
      name: 'redis',
      stop: () => redis.close(),
      isReady: () => redis.ping().then(() => true),
    });
  }
  if (config.needs.includes('documents') && config.mongoUrl) {
    const mongo = await createMongoDocumentStore({ url: config.mongoUrl, dbName: config.mongoDb });
    documents = mongo;
    components.push({
      name: 'mongo',
      start: () => mongo.init(),
      stop: () => mongo.close(),
      isReady: () => mongo.ping().then(() => true),
    });
  }

  const undeclared = (need: InfrastructureNeed) =>
    new Error(`the ${config.service} service uses "${need}" without declaring it in its needs`);
  return {
    get bus() {
      if (!bus) throw undeclared('bus');
      return bus;
    },
    get store() {
      if (!store) throw undeclared('store');
      return store;
    },
    get documents() {
      if (!documents) throw undeclared('documents');
      return documents;
    },
    components,
  };
}
