// Over 300 lines: one server's start, its nodes' settings and the kill/restart a fault test drives.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { freePort } from '../ports';
import { InfraError, runStep, spawnServer, type LocalProcess } from '../process';
import { createRun, type Run } from '../run';
import { errorMessage } from '../util';
import { clusterId, javaBinary, jvmArgs, kafkaLibs, log4jProperties } from './kafka';
import { scratchDir } from './local';

/**
 * A three-node KRaft Kafka of a test's own (the fault suite's; the ordinary tiers keep the
 * harness's one broker): every node is broker and controller, on loopback ports, with the
 * chart's topic defaults — replication factor 3, `min.insync.replicas` 2 — so a write
 * acknowledged with acks=all survives the loss of any one node. A node can be SIGKILLed and
 * started again on its ports and data, as a crashed broker pod comes back.
 *
 * Failure detection is fast for tests (Kafka's defaults in brackets): a broker is fenced and its
 * partitions' leadership moves 3 s after its last heartbeat (`broker.session.timeout.ms`, 9 s;
 * heartbeats every 500 ms, 2 s), and a replica that stopped fetching leaves the ISR after 10 s
 * (`replica.lag.time.max.ms`, 30 s; 10 s here: a shorter lag shrank the ISR on a loaded 2-core
 * machine). Every node is also a KRaft controller, so a killed node is the active controller
 * one time in three: the others elect a new one after `controller.quorum.fetch.timeout.ms`
 * (2 s; 1 s here) and `controller.quorum.election.timeout.ms` (1 s; 0.5 s here), and only then
 * does the broker's session start to run out. With Kafka's values the fault suite measured 8 s
 * from the kill to a new partition leader (load average 20). Production keeps Kafka's defaults.
 */
export interface KafkaClusterNode {
  readonly id: number;
  /** host:port of its broker listener. */
  readonly broker: string;
  /** The running process's pid, or undefined while it is down. */
  pid(): number | undefined;
}

export interface KafkaCluster {
  /** Every node's broker address (host:port), node 1 first. */
  readonly brokers: string[];
  readonly nodes: KafkaClusterNode[];
  /** SIGKILLs a node (its process group). */
  kill(nodeId: number): Promise<void>;
  /** Starts a killed node again on its ports and data; resolves once it is back in the cluster. */
  restart(nodeId: number): Promise<void>;
  /** The node id leading a topic's partition now (as the metadata says). */
  leaderOf(topic: string, partition: number): Promise<number>;
  /** Resolves once every partition of `topic` has all its replicas in sync again. */
  inSync(topic: string, timeoutMs?: number): Promise<void>;
  /** Where the nodes write their logs. */
  readonly logDir: string;
  stop(): Promise<void>;
}

export interface KafkaClusterOptions {
  /** 3 by default; 1 and 2 cannot keep `min.insync.replicas` 2 through a loss. */
  nodes?: number;
  /** The JVM's heap ceiling per node (`-Xmx`), 256m by default. */
  heap?: string;
  /** The harness run (log folder, orphan tracking); a new one by default. */
  run?: Run;
}

const readyTimeoutMs = 120_000;

function properties(
  id: number,
  ports: Array<{ port: number; controllerPort: number }>,
  dataDir: string,
): string {
  const own = ports[id - 1]!;
  const replicas = Math.min(3, ports.length);
  const settings: Record<string, string | number> = {
    'process.roles': 'broker,controller',
    'node.id': id,
    'controller.quorum.voters': ports
      .map((p, index) => `${index + 1}@127.0.0.1:${p.controllerPort}`)
      .join(','),
    listeners: `PLAINTEXT://127.0.0.1:${own.port},CONTROLLER://127.0.0.1:${own.controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${own.port}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    'log.dirs': dataDir,
    'num.partitions': 3,
    // The chart's defaults (charts/underdog/values.yaml, kafka.topics).
    'default.replication.factor': replicas,
    'min.insync.replicas': Math.min(2, replicas),
    'offsets.topic.replication.factor': replicas,
    'offsets.topic.num.partitions': 3,
    'transaction.state.log.replication.factor': replicas,
    'transaction.state.log.min.isr': Math.min(2, replicas),
    'transaction.state.log.num.partitions': 3,
    'unclean.leader.election.enable': 'false',
    'group.initial.rebalance.delay.ms': 0,
    'group.min.session.timeout.ms': 1000,
    'auto.create.topics.enable': 'true',
    'delete.topic.enable': 'true',
    // Fast failure detection for tests (see the interface's comment).
    'broker.session.timeout.ms': 3000,
    'broker.heartbeat.interval.ms': 500,
    'controller.quorum.fetch.timeout.ms': 1000,
    'controller.quorum.election.timeout.ms': 500,
    'replica.lag.time.max.ms': 10000,
    'num.io.threads': 2,
    'num.network.threads': 2,
    'num.replica.fetchers': 1,
    'background.threads': 2,
  };
  return Object.entries(settings)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
}

function admin(brokers: string[]) {
  return new Kafka({
    clientId: 'underdog-harness-cluster',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2_000,
    requestTimeout: 4_000,
    retry: { retries: 0 },
  }).admin();
}

/** The node ids the cluster's metadata lists as live brokers. */
async function liveBrokers(brokers: string[]): Promise<number[]> {
  const client = admin(brokers);
  try {
    await client.connect();
    const { brokers: live } = await client.describeCluster();
    return live.map((broker) => broker.nodeId).sort();
  } finally {
    await client.disconnect();
  }
}

export async function startKafkaCluster(options: KafkaClusterOptions = {}): Promise<KafkaCluster> {
  const count = options.nodes ?? 3;
  const run = options.run ?? createRun();
  const java = javaBinary();
  if (java === undefined) throw new InfraError('kafka-cluster', 'java is not on PATH (Java 17+)');
  const lib = await kafkaLibs(run);
  const memory = [`-Xms64m`, `-Xmx${options.heap ?? '256m'}`, '-XX:+UseSerialGC'];
  const dir = scratchDir('kafka-cluster');
  const log4jFile = join(dir, 'log4j.properties');
  writeFileSync(log4jFile, log4jProperties);
  const ports: Array<{ port: number; controllerPort: number }> = [];
  for (let i = 0; i < count; i += 1) {
    ports.push({ port: await freePort(), controllerPort: await freePort() });
  }
  const brokers = ports.map((p) => `127.0.0.1:${p.port}`);
  const configs = ports.map((_, index) => {
    const id = index + 1;
    const nodeDir = join(dir, `node-${id}`);
    mkdirSync(nodeDir, { recursive: true });
    const config = join(nodeDir, 'server.properties');
    writeFileSync(config, properties(id, ports, join(nodeDir, 'data')));
    return config;
  });
  const procs = new Map<number, LocalProcess>();
  const name = (id: number) => `kafka-node-${id}`;

  const stop = async () => {
    await Promise.all([...procs.values()].map((proc) => proc.stop()));
    procs.clear();
    rmSync(dir, { recursive: true, force: true });
  };

  const launch = (id: number) => {
    procs.set(
      id,
      spawnServer(run, {
        name: name(id),
        command: java,
        args: [...jvmArgs(lib, log4jFile, memory), 'kafka.Kafka', configs[id - 1]!],
        cwd: dir,
      }),
    );
  };

  /**
   * Until the metadata lists every node in `expected` as a live broker. Not test-support's
   * `waitFor` (issue 27 point 5): the harness is infrastructure, also run outside tests (`harness
   * up`), and depends on the kit only; this loop also stops at once when a node exits and fails
   * with an `InfraError` naming its log.
   */
  const waitForBrokers = async (expected: number[], what: string) => {
    const deadline = Date.now() + readyTimeoutMs;
    let last = 'no answer';
    for (;;) {
      for (const id of expected) {
        const exit = procs.get(id)?.exit();
        if (exit !== undefined) {
          throw new InfraError('kafka-cluster', `node ${id} exited`, run.logFile(name(id)));
        }
      }
      try {
        const live = await liveBrokers(brokers);
        if (expected.every((id) => live.includes(id))) return;
        last = `live brokers ${live.join(',')}`;
      } catch (error) {
        last = errorMessage(error);
      }
      if (Date.now() > deadline) {
        throw new InfraError(
          'kafka-cluster',
          `${what} not ready within ${readyTimeoutMs / 1000} s (${last})`,
          run.logFile(name(expected[0]!)),
        );
      }
      await sleep(250);
    }
  };

  const ids = ports.map((_, index) => index + 1);
  try {
    const cluster = clusterId();
    await Promise.all(
      ids.map((id) =>
        runStep(
          java,
          [
            ...jvmArgs(lib, log4jFile, memory),
            ...['kafka.tools.StorageTool', 'format', '-t', cluster, '-c', configs[id - 1]!],
          ],
          { logFile: run.logFile(`${name(id)}-format`), timeoutMs: 120_000 },
        ),
      ),
    );
    for (const id of ids) launch(id);
    await waitForBrokers(ids, `the ${count} nodes`);
  } catch (error) {
    await stop();
    if (error instanceof InfraError) throw error;
    throw new InfraError('kafka-cluster', errorMessage(error), run.logFile(name(1)));
  }

  const topicMetadata = async (topic: string) => {
    // Ask only the nodes running now: with a killed node among the seeds, kafkajs (no retries
    // here) fails whenever it picks that one, and a fault's "new leader" went unmeasured.
    const running = ids.filter((id) => {
      const proc = procs.get(id);
      return proc !== undefined && proc.exit() === undefined;
    });
    const client = admin(running.length > 0 ? running.map((id) => brokers[id - 1]!) : brokers);
    try {
      await client.connect();
      const { topics } = await client.fetchTopicMetadata({ topics: [topic] });
      return topics[0]?.partitions ?? [];
    } finally {
      await client.disconnect();
    }
  };

  return {
    brokers,
    logDir: run.logDir,
    nodes: ids.map((id) => ({
      id,
      broker: brokers[id - 1]!,
      pid: () => {
        const proc = procs.get(id);
        return proc && proc.exit() === undefined ? proc.pid : undefined;
      },
    })),
    async kill(id) {
      const proc = procs.get(id);
      if (proc === undefined) throw new Error(`kafka-cluster: no node ${id} running`);
      try {
        process.kill(-proc.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await proc.stop();
      procs.delete(id);
    },
    async restart(id) {
      if (procs.has(id)) throw new Error(`kafka-cluster: node ${id} is running`);
      launch(id);
      await waitForBrokers([id], `node ${id}`);
    },
    async leaderOf(topic, partition) {
      const found = (await topicMetadata(topic)).find((p) => p.partitionId === partition);
      if (found === undefined) throw new Error(`kafka-cluster: no partition ${topic}/${partition}`);
      return found.leader;
    },
    async inSync(topic, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        try {
          const partitions = await topicMetadata(topic);
          const synced = partitions.every((p) => p.isr.length === p.replicas.length);
          if (partitions.length > 0 && synced) return;
        } catch {
          // a node still joining
        }
        if (Date.now() > deadline) {
          throw new Error(`kafka-cluster: ${topic}'s replicas not in sync within ${timeoutMs} ms`);
        }
        await sleep(250);
      }
    },
    stop,
  };
}
