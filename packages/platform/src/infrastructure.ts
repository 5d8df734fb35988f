import { createKafkaBus, createMemoryBus, type EventBus } from '@underdog/bus';
import {
  createMongoDocumentStore,
  createMemoryDocumentStore,
  type DocumentStore,
} from '@underdog/documents';
import { ConfigError, type Component, type Logger } from '@underdog/kit';
import { createMemoryStore, createRedisStore, type LiveStore } from '@underdog/store';
import { allTopics } from './topics';

/**
 * The three infrastructure ports a service may use. In distributed mode a port whose URL is not
 * configured throws on first use, at boot, naming the missing variable.
 */
export interface Infrastructure {
  readonly bus: EventBus;
  readonly store: LiveStore;
  readonly documents: DocumentStore;
  /** Connect on start, ping for readiness, close on stop. Put them first in a process's group. */
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
  kafkaBrokers?: string[];
  redisUrl?: string;
  mongoUrl?: string;
  mongoDb: string;
}

export function createDistributedInfrastructure(
  config: DistributedInfrastructureConfig,
  logger: Logger,
): Infrastructure {
  const components: Component[] = [];
  let bus: EventBus | undefined;
  let store: LiveStore | undefined;
  let documents: DocumentStore | undefined;
  const missing = (variable: string) =>
    new ConfigError([`${variable}: required by the ${config.service} service (not set)`]);

  return {
    get bus() {
      if (!config.kafkaBrokers) throw missing('KAFKA_BROKERS');
      if (!bus) {
        const kafka = createKafkaBus({
          brokers: config.kafkaBrokers,
          clientId: `${config.service}-${config.instanceId}`,
          logger,
        });
        bus = kafka;
        components.unshift({
          name: 'kafka',
          start: () => kafka.ensureTopics(allTopics),
          stop: () => kafka.close(),
          isReady: () => kafka.ping().then(() => true),
        });
      }
      return bus;
    },
    get store() {
      if (!config.redisUrl) throw missing('REDIS_URL');
      if (!store) {
        const redis = createRedisStore({ url: config.redisUrl });
        store = redis;
        components.unshift({
          name: 'redis',
          start: () => redis.ping().then(() => undefined),
          stop: () => redis.close(),
          isReady: () => redis.ping().then(() => true),
        });
      }
      return store;
    },
    get documents() {
      if (!config.mongoUrl) throw missing('MONGO_URL');
      if (!documents) {
        const mongo = createMongoDocumentStore({ url: config.mongoUrl, dbName: config.mongoDb });
        documents = mongo;
        components.unshift({
          name: 'mongo',
          start: () => mongo.init(),
          stop: () => mongo.close(),
          isReady: () => mongo.ping().then(() => true),
        });
      }
      return documents;
    },
    components,
  };
}
