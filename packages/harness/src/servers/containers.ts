import { randomBytes } from 'node:crypto';
import type { StartedTestContainer } from 'testcontainers';
import { freePort } from '../ports';
import { probeKafka, probeMongo, probeRedis } from '../probes';
import { InfraError, waitReady } from '../process';
import type { ServerHandle } from '../types';
import { errorMessage, seconds } from '../util';

const images = {
  redis: 'redis:7.4-alpine',
  kafka: 'apache/kafka:3.9.1',
  mongo: 'mongo:7.0',
};

/**
 * True when a container engine answers. Bounded, because on a machine with a docker CLI but no
 * daemon some discovery strategies wait on sockets that never answer.
 */
export async function containerRuntimeAvailable(timeoutMs = 3_000): Promise<boolean> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolveTimeout) => {
    timer = setTimeout(() => resolveTimeout(false), timeoutMs);
  });
  const probe = getContainerRuntimeClient().then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function handle(
  name: 'redis' | 'kafka' | 'mongo',
  container: StartedTestContainer,
  url: string,
  what: string,
): ServerHandle {
  return {
    name,
    url,
    description: `${what} (container ${images[name]} ${container.getId().slice(0, 12)}) at ${url}`,
    stop: async () => {
      await container.stop();
    },
  };
}

/** Readiness failures of a started container stop it, so nothing is left running. */
async function readyOrStopContainer<T>(
  container: StartedTestContainer,
  ready: Promise<T>,
): Promise<T> {
  try {
    return await ready;
  } catch (error) {
    await container.stop();
    throw error;
  }
}

async function started(name: string, start: () => Promise<StartedTestContainer>) {
  try {
    return await start();
  } catch (error) {
    throw new InfraError(name, `starting its container failed: ${errorMessage(error)}`);
  }
}

export async function startContainerRedis(): Promise<ServerHandle> {
  const t0 = Date.now();
  const { GenericContainer } = await import('testcontainers');
  const container = await started('redis', () =>
    new GenericContainer(images.redis)
      .withExposedPorts(6379)
      .withCommand([
        'redis-server',
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
      ])
      .start(),
  );
  const url = `redis://${container.getHost()}:${container.getMappedPort(6379)}`;
  const version = await readyOrStopContainer(
    container,
    waitReady({ server: 'redis', timeoutMs: 30_000, probe: () => probeRedis(url) }),
  );
  return handle('redis', container, url, `redis ${version} (ready in ${seconds(t0)})`);
}

/**
 * Clients must reach the broker at the address it advertises, so the host port is chosen first
 * and used on both sides of the mapping; the broker talks to itself on a separate listener.
 */
export async function startContainerKafka(): Promise<ServerHandle> {
  const t0 = Date.now();
  const { GenericContainer, getContainerRuntimeClient } = await import('testcontainers');
  const host = (await getContainerRuntimeClient()).info.containerRuntime.host;
  const port = await freePort();
  const container = await started('kafka', () =>
    new GenericContainer(images.kafka)
      .withExposedPorts({ container: port, host: port })
      .withEnvironment({
        CLUSTER_ID: randomBytes(16).toString('base64url'),
        KAFKA_NODE_ID: '1',
        KAFKA_PROCESS_ROLES: 'broker,controller',
        KAFKA_LISTENERS: `PLAINTEXT://0.0.0.0:${port},BROKER://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093`,
        KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://${host}:${port},BROKER://localhost:9092`,
        KAFKA_LISTENER_SECURITY_PROTOCOL_MAP:
          'PLAINTEXT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT',
        KAFKA_INTER_BROKER_LISTENER_NAME: 'BROKER',
        KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
        KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
        KAFKA_NUM_PARTITIONS: '3',
        KAFKA_DEFAULT_REPLICATION_FACTOR: '1',
        KAFKA_MIN_INSYNC_REPLICAS: '1',
        KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
        KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: '3',
        KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
        KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
        KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'true',
      })
      .start(),
  );
  const broker = `${host}:${port}`;
  await readyOrStopContainer(
    container,
    waitReady({ server: 'kafka', timeoutMs: 90_000, probe: () => probeKafka([broker]) }),
  );
  return handle('kafka', container, broker, `kafka 3.9.1 (KRaft, ready in ${seconds(t0)})`);
}

export async function startContainerMongo(): Promise<ServerHandle> {
  const t0 = Date.now();
  const { GenericContainer } = await import('testcontainers');
  const container = await started('mongo', () =>
    new GenericContainer(images.mongo).withExposedPorts(27017).start(),
  );
  const url = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}`;
  const version = await readyOrStopContainer(
    container,
    waitReady({ server: 'mongo', timeoutMs: 60_000, probe: () => probeMongo(url) }),
  );
  return handle('mongo', container, url, `mongo ${version} (ready in ${seconds(t0)})`);
}
