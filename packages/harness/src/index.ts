import { existsSync } from 'node:fs';
import { InfraError } from './process';
import { createRun, housekeeping } from './run';
import type { Run } from './run';
import {
  containerRuntimeAvailable,
  startContainerKafka,
  startContainerMongo,
  startContainerRedis,
} from './servers/containers';
import { readOverrides, useExternal } from './servers/external';
import type { Overrides } from './servers/external';
import { startLocalKafka } from './servers/kafka';
import { startLocalMongo } from './servers/mongo';
import { startLocalRedis } from './servers/redis';
import { startLocalSmtpSink } from './servers/smtp';
import type { Infra, ServerHandle, ServerName, StartOptions } from './types';
import { errorMessage } from './util';

export { freePort } from './ports';
export { InfraError } from './process';
export {
  startKafkaCluster,
  type KafkaCluster,
  type KafkaClusterNode,
  type KafkaClusterOptions,
} from './servers/kafka-cluster';
export { startOwnMongo } from './servers/mongo';
export { startRedisSentinelGroup, type RedisSentinelGroup } from './servers/redis-sentinel';
export { startRestartableRedis, type RestartableRedis } from './servers/redis-restartable';
export { smtpSinkClient } from './smtp-client';
export { envNames, testInfra } from './test-env';
export type { TestInfra } from './test-env';
export type { SmtpSinkClient } from './smtp-client';
export type { Infra, ServerHandle, SinkMessage, StartOptions } from './types';

type Mode = 'local' | 'containers';

const serverNames: ServerName[] = ['redis', 'kafka', 'mongo', 'smtp'];

/** UNDERDOG_INFRA=local|containers forces a mode; otherwise containers when an engine answers. */
async function chooseMode(): Promise<Mode> {
  const forced = process.env.UNDERDOG_INFRA;
  if (forced === 'local' || forced === 'containers') return forced;
  if (forced !== undefined && forced !== '') {
    throw new Error(`harness: UNDERDOG_INFRA must be "local" or "containers", not "${forced}"`);
  }
  return (await containerRuntimeAvailable()) ? 'containers' : 'local';
}

async function startServer(
  name: ServerName,
  mode: Mode,
  run: Run,
  overrides: Overrides,
): Promise<ServerHandle> {
  const external = await useExternal(name, overrides);
  if (external !== undefined) return external;
  // The SMTP sink is our own small Node program, so it runs as a local process in both modes.
  switch (name) {
    case 'redis':
      return mode === 'containers' ? startContainerRedis() : startLocalRedis(run);
    case 'kafka':
      return mode === 'containers' ? startContainerKafka() : startLocalKafka(run);
    case 'mongo':
      return mode === 'containers' ? startContainerMongo() : startLocalMongo(run);
    case 'smtp':
      return startLocalSmtpSink(run);
  }
}

/** Every failure names its server and, for a local process, its log. */
async function startExplained(
  name: ServerName,
  mode: Mode,
  run: Run,
  overrides: Overrides,
): Promise<ServerHandle> {
  try {
    return await startServer(name, mode, run, overrides);
  } catch (error) {
    if (error instanceof InfraError) throw error;
    const logFile = run.logFile(name);
    throw new InfraError(name, errorMessage(error), existsSync(logFile) ? logFile : undefined);
  }
}

async function stopAll(handles: ServerHandle[]): Promise<void> {
  const results = await Promise.allSettled(handles.map((h) => h.stop()));
  const failures = results.flatMap((r, i) =>
    r.status === 'rejected' ? [`${handles[i]?.name}: ${errorMessage(r.reason)}`] : [],
  );
  if (failures.length > 0) throw new Error(`harness: stopping failed: ${failures.join('; ')}`);
}

function toInfra(handles: ServerHandle[]): Infra {
  const byName = (name: ServerName): ServerHandle | undefined =>
    handles.find((h) => h.name === name);
  const kafka = byName('kafka')?.url;
  let stopping: Promise<void> | undefined;
  return {
    redisUrl: byName('redis')?.url ?? '',
    kafkaBrokers: kafka === undefined ? [] : kafka.split(','),
    mongoUrl: byName('mongo')?.url ?? '',
    smtpUrl: byName('smtp')?.url ?? '',
    smtpApiUrl: byName('smtp')?.apiUrl ?? '',
    describe: () => handles.map((h) => `harness: ${h.description}`).join('\n'),
    stop: () => (stopping ??= stopAll(handles)),
  };
}

/**
 * Starts real Redis, Kafka, a MongoDB-wire server and an SMTP sink, in parallel: from the
 * environment (REDIS_URL, KAFKA_BROKERS, MONGO_URL, SMTP_URL + SMTP_SINK_API), else as
 * containers when an engine answers, else as local processes built into the cache. Throws,
 * naming the server and its log, if any of them cannot be provided; never skips one.
 */
export async function startInfra(opts: StartOptions = {}): Promise<Infra> {
  housekeeping();
  const wanted = serverNames.filter((name) => opts[name] ?? true);
  const overrides = readOverrides();
  const needsMode = wanted.some((name) => name !== 'smtp' && overrides[name] === undefined);
  const mode = needsMode ? await chooseMode() : 'local';
  const run = createRun(opts.logDir);

  const results = await Promise.allSettled(
    wanted.map((name) => startExplained(name, mode, run, overrides)),
  );
  const handles = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failures = results.flatMap((r) =>
    r.status === 'rejected' ? [errorMessage(r.reason)] : [],
  );
  if (failures.length === 0) return toInfra(handles);

  await stopAll(handles).catch((error: unknown) => console.error(errorMessage(error)));
  throw new Error(failures.join('\n\n'));
}
