import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startInfra, type Infra } from '@underdog/harness';
import { Supervisor } from './supervisor';

const root = join(__dirname, '..', '..');

/** Every process of the distributed mode, in start order, with the variables each one needs. */
const services = ['auth', 'tournament', 'game-engine', 'ads', 'notification'] as const;
type ProcessName = (typeof services)[number] | 'gateway';

export interface InfraUrls {
  redisUrl: string;
  kafkaBrokers: string[];
  mongoUrl: string;
  smtpUrl: string;
}

export interface StackProcess {
  name: ProcessName;
  pid: number;
  url: string;
  logFile: string;
}

export interface Stack {
  gatewayUrl: string;
  /** Every gateway replica's URL, `gatewayUrl` first (see `extraGateways`). */
  gatewayUrls: string[];
  processes: StackProcess[];
  infra: InfraUrls;
  /** Resolves when every process answers 200 on /readyz; rejects naming the ones that do not. */
  waitUntilReady(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Reuse running servers (the test harness's); otherwise the stack starts its own. */
  infra?: InfraUrls;
  gatewayPort?: number;
  /** More gateway replicas besides the first, each on its own port (real-time fan-out tests). */
  extraGateways?: number;
  /**
   * More game-engine replicas besides the first (the benchmark's one replica per partition in
   * play); they share the engine's consumer groups, so Kafka splits the partitions among them.
   */
  extraEngines?: number;
  logDir: string;
  logLevel?: string;
  /** Extra variables for every process (e.g. lower rate limits in tests). */
  env?: Record<string, string>;
  /** Extra Node options for every process (the benchmark's `--cpu-prof`). */
  nodeArgs?: string[];
  /** Called when a process exits while the stack is meant to be running. */
  onUnexpectedExit?: (name: ProcessName, code: number | null) => void;
  /**
   * Restart a process that exits while the stack is running, with a backoff, as Kubernetes
   * would (`npm run stack -- --supervise`); `onUnexpectedExit` is still told of each exit.
   */
  supervise?: boolean;
  /** Told of each restart of a supervised process (`instance` names the replica). */
  onRestart?: (instance: string, delayMs: number, restart: number) => void;
  /** The wait before restart N of a supervised process (500 ms doubling to 30 s by default). */
  restartDelayMs?: (restart: number) => number;
}

function bundlePath(name: ProcessName): string {
  const path =
    name === 'gateway'
      ? join(root, 'gateway', 'dist', 'main.js')
      : join(root, 'services', name, 'dist', 'main.js');
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`pnpm run build\` first`);
  return path;
}

/**
 * Starts the distributed mode on this machine: real Kafka, Redis, MongoDB-wire and SMTP servers
 * (or the given ones), then every service and the gateway as its own Node process.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  let ownInfra: Infra | undefined;
  const infra: InfraUrls = options.infra ?? (ownInfra = await startInfra());
  try {
    mkdirSync(options.logDir, { recursive: true });
    for (const name of [...services, 'gateway' as const]) bundlePath(name);
  } catch (error) {
    await ownInfra?.stop();
    throw error;
  }

  const children = new Map<string, ChildProcess>();
  const supervisors: Supervisor[] = [];
  const processes: StackProcess[] = [];
  let stopping = false;

  function launch(
    name: ProcessName,
    port: number,
    env: Record<string, string>,
    instance: string = name,
  ) {
    const logFile = join(options.logDir, `${instance}.log`);
    const log = createWriteStream(logFile, { flags: 'a' });
    const args = [...(options.nodeArgs ?? []), '--enable-source-maps', bundlePath(name)];
    const start = () =>
      spawn(process.execPath, args, {
        cwd: root,
        env: {
          ...process.env,
          NODE_ENV: 'development',
          LOG_LEVEL: options.logLevel ?? 'info',
          HOST: '127.0.0.1',
          PORT: String(port),
          INSTANCE_ID: instance === name ? `${name}-1` : instance,
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const entry: StackProcess = { name, pid: -1, url: `http://127.0.0.1:${port}`, logFile };
    processes.push(entry);
    const started = (child: ChildProcess) => {
      child.stdout?.pipe(log, { end: false });
      child.stderr?.pipe(log, { end: false });
      child.on('exit', (code) => {
        if (!stopping) options.onUnexpectedExit?.(name, code);
      });
      children.set(instance, child);
      entry.pid = child.pid ?? -1;
    };
    if (!options.supervise) {
      started(start());
      return;
    }
    supervisors.push(
      new Supervisor({
        start,
        onStart: started,
        ...(options.restartDelayMs ? { delayMs: options.restartDelayMs } : {}),
        onRestart: ({ restart, delayMs }) => options.onRestart?.(instance, delayMs, restart),
      }),
    );
  }

  const gatewayPort = options.gatewayPort ?? (await freePort());
  const gatewayUrl = `http://localhost:${gatewayPort}`;
  const serviceUrls = new Map<ProcessName, string>();
  // One key for every process, as the chart's Secret gives them: internal calls are signed with
  // it and every service refuses a call that is not (docs/adr/0013-service-credentials.md).
  const serviceTokenSecret = `stack-${randomUUID()}-${randomUUID()}`;
  const serviceEnv = {
    SERVICE_TOKEN_SECRET: serviceTokenSecret,
    KAFKA_BROKERS: infra.kafkaBrokers.join(','),
    REDIS_URL: infra.redisUrl,
    MONGO_URL: infra.mongoUrl,
    SMTP_URL: infra.smtpUrl,
    PUBLIC_URL: gatewayUrl,
    ...options.env,
  };
  for (const name of services) {
    const port = await freePort();
    serviceUrls.set(name, `http://127.0.0.1:${port}`);
    launch(name, port, serviceEnv);
  }
  for (let replica = 2; replica <= 1 + (options.extraEngines ?? 0); replica += 1) {
    launch('game-engine', await freePort(), serviceEnv, `game-engine-${replica}`);
  }
  const gatewayEnv = {
    SERVICE_TOKEN_SECRET: serviceTokenSecret,
    KAFKA_BROKERS: infra.kafkaBrokers.join(','),
    REDIS_URL: infra.redisUrl,
    AUTH_URL: serviceUrls.get('auth')!,
    TOURNAMENT_URL: serviceUrls.get('tournament')!,
    GAME_ENGINE_URL: serviceUrls.get('game-engine')!,
    ADS_URL: serviceUrls.get('ads')!,
    NOTIFICATION_URL: serviceUrls.get('notification')!,
    // One key for every replica, as the chart's Secret gives them (fair-play hashes).
    FAIR_PLAY_SECRET: `stack-${randomUUID()}-${randomUUID()}`,
    ...options.env,
  };
  launch('gateway', gatewayPort, gatewayEnv);
  const gatewayUrls = [gatewayUrl];
  for (let replica = 2; replica <= 1 + (options.extraGateways ?? 0); replica += 1) {
    const port = await freePort();
    launch('gateway', port, gatewayEnv, `gateway-${replica}`);
    gatewayUrls.push(`http://localhost:${port}`);
  }

  return {
    gatewayUrl,
    gatewayUrls,
    processes,
    infra,
    async waitUntilReady(timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      const pending = new Set(processes);
      while (pending.size > 0) {
        for (const proc of [...pending]) {
          if (await isReady(proc.url)) pending.delete(proc);
        }
        if (pending.size === 0) break;
        if (Date.now() > deadline) {
          const names = [...pending].map((p) => `${p.name} (log: ${p.logFile})`).join(', ');
          throw new Error(`not ready after ${timeoutMs} ms: ${names}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    async stop() {
      stopping = true;
      for (const supervisor of supervisors) supervisor.stop();
      await Promise.all(
        [...children.values()].map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
              child.once('exit', () => {
                clearTimeout(kill);
                resolve();
              });
              child.kill('SIGTERM');
            }),
        ),
      );
      await ownInfra?.stop();
    },
  };
}

async function isReady(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
    return response.status === 200;
  } catch {
    return false;
  }
}
