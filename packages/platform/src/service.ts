import { hostname } from 'node:os';
import {
  ComponentGroup,
  ConfigError,
  createHttpApp,
  createMetricsApp,
  createLogger,
  createMetricsRegistry,
  envFields,
  finishHttpApp,
  httpServerComponent,
  parseEnv,
  runUntilSignal,
  type Component,
  type Environment,
  type Logger,
  type ReadinessReport,
  type Registry,
} from '@underdog/kit';
import {
  SERVICE_TOKEN_SECRET_MIN_LENGTH,
  createRpcRouter,
  type RegisterRoutes,
} from '@underdog/rpc';
import { z } from 'zod';
import {
  createDistributedInfrastructure,
  type Infrastructure,
  type InfrastructureNeed,
} from './infrastructure';

/** What every service gets, whichever way the process runs. */
export interface ServiceContext {
  logger: Logger;
  registry: Registry;
  infrastructure: Infrastructure;
  nodeEnv: 'development' | 'production' | 'test';
  /** This replica's name (`INSTANCE_ID`, default host and pid): lease owner, consumer groups. */
  instanceId: string;
  /** The whole process's readiness, every component's; what `/readyz` reports. */
  readiness: () => Promise<ReadinessReport>;
  /**
   * `SERVICE_TOKEN_SECRET` in distributed mode: the key internal calls are signed and checked
   * with (docs/adr/0013-service-credentials.md). Absent in standalone, where calls stay in-process.
   */
  serviceTokenSecret?: string;
}

/** What a service hands back: its moving parts and its Connect-RPC handlers. */
export interface ServiceModule {
  components: Component[];
  registerRpc?: RegisterRoutes;
  /**
   * An edge serving its own HTTP surface (the gateway): the runner listens with this component
   * instead of its own health + Connect app. It starts last and stops first.
   */
  listen?: (options: { port: number; host: string; logger: Logger }) => Component;
}

/**
 * A service, described once and run either as its own process (`runServiceProcess`, distributed
 * mode) or inside the standalone process next to the others. `create` is the service's
 * `createXModule(context, config)`, the one seam of every service and the gateway; its third
 * argument, `adapters`, is what tests and the standalone process hand in instead of the defaults.
 */
export interface ServiceDefinition<Config> {
  name: string;
  defaultPort: number;
  /** The infrastructure ports the service uses; distributed mode connects exactly these. */
  needs: readonly InfrastructureNeed[];
  /** Parses the service's own variables; throws ConfigError listing every problem. */
  config: (env: Environment) => Config;
  /** Kafka consumer group timings from the service's config (distributed mode only). */
  kafka?: (config: Config) => { sessionTimeoutMs?: number; heartbeatIntervalMs?: number };
  create: (context: ServiceContext, config: Config) => ServiceModule | Promise<ServiceModule>;
}

/** `host:port,host:port`: at least one, each with a port. */
function sentinelAddresses() {
  return z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((address) => address.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'each Sentinel is host:port'))
        .min(1, 'at least one Sentinel, host:port'),
    )
    .transform((addresses) =>
      addresses.map((address) => {
        const at = address.lastIndexOf(':');
        return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
      }),
    );
}

const processEnvShape = (service: string, defaultPort: number) => ({
  PORT: envFields.port(defaultPort),
  // A port of its own for Prometheus; unset, /metrics answers loopback clients on PORT only.
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  HOST: envFields.host(),
  LOG_LEVEL: envFields.logLevel(),
  NODE_ENV: envFields.nodeEnv(),
  INSTANCE_ID: z.string().min(1).default(`${hostname()}-${process.pid}`),
  KAFKA_BROKERS: envFields.brokers().optional(),
  REDIS_URL: envFields.url().optional(),
  // Redis Sentinel, when set: the live store finds the primary through these (host:port, …).
  REDIS_SENTINELS: sentinelAddresses().optional(),
  REDIS_SENTINEL_NAME: z.string().min(1).default('mymaster'),
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
  // How long a Redis command may go unanswered before it fails (the store's default: 5 s).
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).optional(),
  MONGO_URL: envFields.url().optional(),
  MONGO_DB: z.string().min(1).default(`underdog-${service}`),
  // The shared key of internal calls: every service refuses a call not signed with it.
  SERVICE_TOKEN_SECRET: serviceTokenSecretField(),
});

/** `SERVICE_TOKEN_SECRET`: required in distributed mode, 32+ characters, the same everywhere. */
export function serviceTokenSecretField() {
  return z
    .string({ error: 'required in distributed mode: the key of internal calls' })
    .min(
      SERVICE_TOKEN_SECRET_MIN_LENGTH,
      `must be at least ${SERVICE_TOKEN_SECRET_MIN_LENGTH} characters`,
    );
}

/** The variables every process reads (ports, logging, the servers' addresses). */
export function processConfig(service: string, defaultPort: number, env: Environment) {
  return parseEnv(processEnvShape(service, defaultPort), env);
}

/** Parses several config models and reports the problems of all of them together. */
export function parseAll<T extends unknown[]>(...parsers: { [K in keyof T]: () => T[K] }): T {
  const problems: string[] = [];
  const results = parsers.map((parse) => {
    try {
      return parse();
    } catch (error) {
      if (error instanceof ConfigError) problems.push(...error.problems);
      else throw error;
      return undefined;
    }
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return results as T;
}

/** The distributed-mode main of a service: real adapters, its own HTTP port, signals. */
export async function runServiceProcess<Config>(
  definition: ServiceDefinition<Config>,
  env: Environment,
): Promise<void> {
  let common: ReturnType<typeof processConfig>;
  let config: Config;
  try {
    [common, config] = parseAll(
      () => processConfig(definition.name, definition.defaultPort, env),
      () => definition.config(env),
    );
  } catch (error) {
    console.error(`${definition.name}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(78);
  }
  const logger = createLogger({ service: definition.name, level: common.LOG_LEVEL });
  const registry = createMetricsRegistry(definition.name);
  const components: Component[] = [];
  const group = new ComponentGroup(logger, components);
  let infrastructure: Infrastructure;
  let module: ServiceModule;
  try {
    infrastructure = await createDistributedInfrastructure(
      {
        service: definition.name,
        instanceId: common.INSTANCE_ID,
        needs: definition.needs,
        kafkaBrokers: common.KAFKA_BROKERS,
        redisUrl: common.REDIS_URL,
        redisSentinel: common.REDIS_SENTINELS && {
          sentinels: common.REDIS_SENTINELS,
          name: common.REDIS_SENTINEL_NAME,
          password: common.REDIS_SENTINEL_PASSWORD,
        },
        redisCommandTimeoutMs: common.REDIS_COMMAND_TIMEOUT_MS,
        mongoUrl: common.MONGO_URL,
        mongoDb: common.MONGO_DB,
        kafkaSessionTimeoutMs: definition.kafka?.(config).sessionTimeoutMs,
        kafkaHeartbeatIntervalMs: definition.kafka?.(config).heartbeatIntervalMs,
        registry,
      },
      logger,
    );
    module = await definition.create(
      {
        logger,
        registry,
        infrastructure,
        nodeEnv: common.NODE_ENV,
        instanceId: common.INSTANCE_ID,
        readiness: () => group.readiness(),
        serviceTokenSecret: common.SERVICE_TOKEN_SECRET,
      },
      config,
    );
  } catch (error) {
    logger.fatal({ err: error }, 'could not create the service');
    process.exit(error instanceof ConfigError ? 78 : 1);
  }

  const listen = { port: common.PORT, host: common.HOST, logger };
  components.push(
    ...infrastructure.components,
    ...module.components,
    module.listen?.(listen) ??
      httpServerComponent(
        serviceHttpApp(module, {
          logger,
          registry,
          readiness: () => group.readiness(),
          serviceTokenSecret: common.SERVICE_TOKEN_SECRET,
        }),
        listen,
      ),
    ...(common.METRICS_PORT
      ? [
          httpServerComponent(createMetricsApp({ logger, registry }), {
            ...listen,
            port: common.METRICS_PORT,
          }),
        ]
      : []),
  );
  await runUntilSignal(group, logger);
}

/**
 * A service's HTTP surface in distributed mode: `/healthz`, `/readyz` and `/metrics` open as
 * before, and its Connect handlers, which answer only calls carrying a valid service credential
 * (signed with `serviceTokenSecret`); a call without one is refused and logged.
 */
export function serviceHttpApp(
  module: Pick<ServiceModule, 'registerRpc'>,
  options: {
    logger: Logger;
    registry: Registry;
    readiness: () => Promise<ReadinessReport>;
    serviceTokenSecret: string;
  },
) {
  const { logger, registry, readiness, serviceTokenSecret } = options;
  const app = createHttpApp({ logger, registry, readiness });
  if (module.registerRpc) {
    app.use(
      createRpcRouter(module.registerRpc, {
        credentials: { secret: serviceTokenSecret, logger: logger.child({ component: 'rpc' }) },
      }),
    );
  }
  finishHttpApp(app, logger);
  return app;
}
