// The target of a benchmark: the distributed stack (tools/stack) or the standalone process,
// started with the benchmark seam on, and stopped (one gateway at a time for the storm).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '@underdog/harness';
import { startStack, type InfraUrls, type Stack } from '../../tools/stack/stack';
import { admin } from './gateway-api';

const root = join(__dirname, '..', '..');

export type BenchMode = 'distributed' | 'standalone';
export type StopSignal = 'SIGTERM' | 'SIGKILL';

/** What the target is started with (a part of `BenchOptions`). */
export interface TargetOptions {
  mode: BenchMode;
  gateways: number;
  engines?: number;
  logDir: string;
  infra?: InfraUrls;
  cpuProfileDir?: string;
  nodeFlags?: string[];
  capacity?: number;
}

export interface Target {
  gatewayUrls: string[];
  /** The MongoDB-wire server's URL (distributed mode). */
  mongoUrl?: string;
  /** The live store's URL (distributed mode). */
  redisUrl?: string;
  /** Kafka's brokers (distributed mode). */
  kafkaBrokers?: string[];
  /** The processes we started, by pid, for the per-process figures. */
  named: Map<number, string>;
  /** Stops one gateway replica (index in `gatewayUrls`) with `signal`; resolves once it is gone. */
  stopGateway?(index: number, signal: StopSignal): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Every process's extra variables: the benchmark seam on, quiet logs. The tournament scheduler
 * keeps its default poll (250 ms): a faster one queried the database through the round.
 */
const benchEnv = {
  ADMIN_EMAIL: admin.email,
  ADMIN_PASSWORD: admin.password,
  BENCHMARK_SEED: 'on',
  // The chart's level (values.yaml `logLevel: info`): a bench at `warn` skipped the logging
  // production pays for (issue 36 point 6).
  LOG_LEVEL: 'info',
};

/** Profiles are written when a process exits normally (the stack stops them with SIGTERM). */
/** The variables of every process: the bench's, and the gateways' capacity when asked. */
function targetEnv(options: TargetOptions): Record<string, string> {
  return {
    ...benchEnv,
    ...(options.capacity === undefined ? {} : { WEBSOCKET_CAPACITY: String(options.capacity) }),
  };
}

function nodeArgs(options: TargetOptions): string[] {
  const flags = options.nodeFlags ?? [];
  if (!options.cpuProfileDir) return flags;
  mkdirSync(options.cpuProfileDir, { recursive: true });
  return [...flags, '--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`];
}

export async function startDistributed(options: TargetOptions): Promise<Target> {
  const stack: Stack = await startStack({
    ...(options.infra ? { infra: options.infra } : {}),
    extraGateways: Math.max(0, options.gateways - 1),
    extraEngines: Math.max(0, (options.engines ?? 1) - 1),
    logDir: options.logDir,
    logLevel: 'info',
    env: targetEnv(options),
    nodeArgs: nodeArgs(options),
  });
  try {
    await stack.waitUntilReady(180_000);
  } catch (error) {
    await stack.stop();
    throw error;
  }
  const named = new Map<number, string>();
  const counts = new Map<string, number>();
  for (const proc of stack.processes) {
    const seen = (counts.get(proc.name) ?? 0) + 1;
    counts.set(proc.name, seen);
    named.set(proc.pid, seen > 1 ? `${proc.name}-${seen}` : proc.name);
  }
  return {
    gatewayUrls: stack.gatewayUrls,
    mongoUrl: stack.infra.mongoUrl,
    redisUrl: stack.infra.redisUrl,
    kafkaBrokers: stack.infra.kafkaBrokers,
    named,
    async stopGateway(index, signal) {
      const port = new URL(stack.gatewayUrls[index]!).port;
      const gateway = stack.processes.find(
        (proc) => proc.name === 'gateway' && new URL(proc.url).port === port,
      );
      if (!gateway) throw new Error(`no gateway process on port ${port}`);
      process.kill(gateway.pid, signal);
      const deadline = Date.now() + 30_000;
      while (isRunning(gateway.pid) && Date.now() < deadline) await sleep(50);
    },
    stop: () => stack.stop(),
  };
}

export async function startStandalone(options: TargetOptions): Promise<Target> {
  const port = await freePort();
  mkdirSync(options.logDir, { recursive: true });
  const child: ChildProcess = spawn(
    process.execPath,
    [...nodeArgs(options), join(root, 'apps', 'standalone', 'dist', 'main.js')],
    {
      cwd: root,
      env: {
        ...process.env,
        ...targetEnv(options),
        PORT: String(port),
        HOST: '127.0.0.1',
        DEMO: 'off',
        NODE_ENV: 'development',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = await fetch(`${url}/readyz`)
      .then((response) => response.status === 200)
      .catch(() => false);
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('the standalone process did not become ready (is it built? pnpm build)');
    }
    await sleep(250);
  }
  return {
    gatewayUrls: [url],
    named: new Map([[child.pid ?? -1, 'standalone']]),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
