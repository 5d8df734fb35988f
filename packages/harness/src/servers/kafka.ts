import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withLock } from '../lock';
import { infraDir, repoRoot } from '../paths';
import { freePort } from '../ports';
import { probeKafka } from '../probes';
import { InfraError, runStep, spawnServer, waitReady } from '../process';
import type { Run } from '../run';
import type { ServerHandle } from '../types';
import { errorMessage, findExecutable, seconds } from '../util';
import { readyOrStop, scratchDir } from './local';

export const kafkaVersion = '3.9.1';
const pomFile = join(repoRoot, 'tools', 'kafka', 'pom.xml');
const fetchTimeoutMs = 20 * 60_000;
/** A cold JVM on a loaded 2-core machine needs most of this. */
const readyTimeoutMs = 90_000;

export function javaBinary(): string | undefined {
  const home = process.env.JAVA_HOME;
  if (home !== undefined && existsSync(join(home, 'bin', 'java'))) return join(home, 'bin', 'java');
  return findExecutable('java');
}

/**
 * The broker's jars, fetched from Maven Central once per pom.xml content. A stamp written last
 * marks a complete copy, so an interrupted fetch is redone rather than half used.
 */
export async function kafkaLibs(run: Run): Promise<string> {
  const pomHash = createHash('sha256').update(readFileSync(pomFile)).digest('hex');
  const home = infraDir(`kafka-${kafkaVersion}`);
  const lib = join(home, 'lib');
  const stamp = join(home, 'lib.stamp');
  const complete = (): boolean => existsSync(stamp) && readFileSync(stamp, 'utf8') === pomHash;
  if (complete()) return lib;

  const logFile = run.logFile('kafka-fetch');
  const mvn = findExecutable('mvn');
  if (mvn === undefined) {
    throw new InfraError('kafka', 'Maven (mvn) is not on PATH; it fetches the broker jars');
  }
  await withLock(infraDir('locks', `kafka-${kafkaVersion}.lock`), async () => {
    if (complete()) return;
    console.error(`harness: fetching Kafka ${kafkaVersion} jars with Maven (log: ${logFile})`);
    const staging = `${lib}.tmp-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(home, { recursive: true });
    try {
      await runStep(mvn, ['-B', '-q', '-f', pomFile, `-DoutputDirectory=${staging}`, 'package'], {
        logFile,
        timeoutMs: fetchTimeoutMs,
        cwd: home,
      });
    } catch (error) {
      throw new InfraError('kafka', `fetching the jars failed: ${errorMessage(error)}`, logFile);
    }
    rmSync(lib, { recursive: true, force: true });
    renameSync(staging, lib);
    writeFileSync(stamp, pomHash);
  });
  return lib;
}

interface KafkaPorts {
  port: number;
  controllerPort: number;
}

function serverProperties(ports: KafkaPorts, dataDir: string): string {
  const settings: Record<string, string | number> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@127.0.0.1:${ports.controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${ports.port},CONTROLLER://127.0.0.1:${ports.controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${ports.port}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    'log.dirs': dataDir,
    'num.partitions': 3,
    'default.replication.factor': 1,
    'min.insync.replicas': 1,
    'offsets.topic.replication.factor': 1,
    // Few internal partitions: creating fifty of them is most of a cold first consumer join.
    'offsets.topic.num.partitions': 3,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'transaction.state.log.num.partitions': 3,
    'group.initial.rebalance.delay.ms': 0,
    // Lets tests use short consumer sessions (fail-over after a kill -9); Kafka's default is 6 s.
    'group.min.session.timeout.ms': 1000,
    'auto.create.topics.enable': 'true',
    'delete.topic.enable': 'true',
  };
  return Object.entries(settings)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
}

export const log4jProperties = [
  'log4j.rootLogger=INFO, stdout',
  'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
  'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
  'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n',
  'log4j.logger.state.change.logger=WARN',
  'log4j.logger.kafka.request.logger=WARN',
].join('\n');

/**
 * KRaft cluster ids are 16 random bytes in unpadded base64url. Not one starting with `-`: the
 * storage tool would read it as an option and refuse to format (1 start in 64 failed so); Kafka's
 * own `Uuid.randomUuid()` draws again for the same reason.
 */
export function clusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/**
 * C1-only JIT: the broker starts about 1.5 s sooner on 2 cores, and test traffic is far too light
 * to miss the optimising compiler. `memory` replaces the heap and collector flags (the
 * three-node cluster's smaller nodes).
 */
export function jvmArgs(
  lib: string,
  log4jFile: string,
  memory: string[] = ['-Xms256m', '-Xmx768m', '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20'],
): string[] {
  return [
    ...memory,
    '-XX:TieredStopAtLevel=1',
    '-Djava.awt.headless=true',
    `-Dlog4j.configuration=file:${log4jFile}`,
    ...['-cp', `${lib}/*`],
  ];
}

export async function startLocalKafka(run: Run): Promise<ServerHandle> {
  const started = Date.now();
  const java = javaBinary();
  if (java === undefined) throw new InfraError('kafka', 'java is not on PATH (Java 17+ needed)');
  const lib = await kafkaLibs(run);
  const ports = { port: await freePort(), controllerPort: await freePort() };
  const dir = scratchDir('kafka');
  const config = join(dir, 'server.properties');
  const log4jFile = join(dir, 'log4j.properties');
  writeFileSync(config, serverProperties(ports, join(dir, 'data')));
  writeFileSync(log4jFile, log4jProperties);

  const logFile = run.logFile('kafka');
  const storageArgs = ['kafka.tools.StorageTool', 'format', '-t', clusterId(), '-c', config];
  try {
    await runStep(java, [...jvmArgs(lib, log4jFile), ...storageArgs], {
      logFile,
      timeoutMs: 120_000,
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new InfraError(
      'kafka',
      `formatting KRaft storage failed: ${errorMessage(error)}`,
      logFile,
    );
  }

  const proc = spawnServer(run, {
    name: 'kafka',
    command: java,
    args: [...jvmArgs(lib, log4jFile), 'kafka.Kafka', config],
    cwd: dir,
    tmpDir: dir,
  });
  const broker = `127.0.0.1:${ports.port}`;
  await readyOrStop(
    proc,
    waitReady({
      server: 'kafka',
      timeoutMs: readyTimeoutMs,
      proc,
      probe: () => probeKafka([broker]),
    }),
  );
  return {
    name: 'kafka',
    url: broker,
    description: `kafka ${kafkaVersion} (local process, KRaft, ready in ${seconds(started)}) at ${broker} — log ${logFile}`,
    stop: () => proc.stop(),
  };
}
