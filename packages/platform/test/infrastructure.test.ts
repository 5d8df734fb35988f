import { ConfigError, createLogger } from '@underdog/kit';
import {
  createDistributedInfrastructure,
  createMemoryInfrastructure,
  type DistributedInfrastructureConfig,
  type InfrastructureNeed,
} from '../src';

const logger = createLogger({ service: 'platform-test', level: 'silent' });

/** Addresses nothing listens on: connecting to any of them would fail the test. */
const unreachable = {
  kafkaBrokers: ['127.0.0.1:1'],
  redisUrl: 'redis://127.0.0.1:1',
  mongoUrl: 'mongodb://127.0.0.1:1',
};

const configFor = (
  needs: readonly InfrastructureNeed[],
  servers: Partial<typeof unreachable> = {},
): DistributedInfrastructureConfig => ({
  service: 'quiz',
  instanceId: 'quiz-1',
  needs,
  mongoDb: 'underdog-quiz',
  ...servers,
});

async function failure(operation: Promise<unknown>): Promise<unknown> {
  return operation.then(
    () => undefined,
    (reason: unknown) => reason,
  );
}

describe('distributed infrastructure', () => {
  it('lists every declared need whose server is not configured, naming its variable', async () => {
    const error = await failure(
      createDistributedInfrastructure(configFor(['bus', 'store', 'documents']), logger),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'KAFKA_BROKERS: required by the quiz service (not set)',
      'REDIS_URL: required by the quiz service (not set)',
      'MONGO_URL: required by the quiz service (not set)',
    ]);
  });

  it('counts an empty broker list as not configured', async () => {
    const error = await failure(
      createDistributedInfrastructure(configFor(['bus'], { kafkaBrokers: [] }), logger),
    );
    expect((error as ConfigError).problems).toEqual([
      'KAFKA_BROKERS: required by the quiz service (not set)',
    ]);
  });

  it('connects nothing it was not asked for, even when its server is configured', async () => {
    const infrastructure = await createDistributedInfrastructure(
      configFor([], unreachable),
      logger,
    );
    expect(infrastructure.components).toEqual([]);
  });

  it('refuses the use of a port the service did not declare', async () => {
    const infrastructure = await createDistributedInfrastructure(
      configFor([], unreachable),
      logger,
    );
    expect(() => infrastructure.bus).toThrow(
      'the quiz service uses "bus" without declaring it in its needs',
    );
    expect(() => infrastructure.store).toThrow(
      'the quiz service uses "store" without declaring it in its needs',
    );
    expect(() => infrastructure.documents).toThrow(
      'the quiz service uses "documents" without declaring it in its needs',
    );
  });
});

describe('memory infrastructure', () => {
  it('gives every port, without declarations, and closes them on stop', async () => {
    const infrastructure = createMemoryInfrastructure(logger);
    const [component] = infrastructure.components;
    await component?.start?.();
    await infrastructure.store.set('key', 'value');
    expect(await infrastructure.store.get('key')).toBe('value');
    await expect(infrastructure.documents.ping()).resolves.toBeUndefined();
    await component?.stop?.();
    await expect(infrastructure.documents.ping()).rejects.toThrow('closed');
  });
});
