import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../ports';
import { InfraError } from '../process';
import { askRedis } from './redis-ask';
import { findExecutable } from '../util';

/**
 * A replicated Redis watched by Sentinels, of a test's own (the shared harness Redis stays
 * untouched): a primary, its replicas and Sentinels, local `redis-server` processes (a Sentinel
 * is `redis-server <conf> --sentinel`, no other package needed). Failover is fast: a primary is
 * down after 1 s without an answer.
 */
export interface RedisSentinelGroup {
  /** The primary's name in the Sentinels' configuration. */
  readonly name: string;
  readonly sentinels: Array<{ host: string; port: number }>;
  /** The primary's port at start. */
  readonly primaryPort: number;
  /** SIGKILLs the current primary (as the Sentinels see it); resolves with its port. */
  killPrimary(): Promise<number>;
  /**
   * SIGSTOPs the current primary: its sockets stay open and nothing answers, as a stalled
   * server's. `resume` sends SIGCONT (`stop` kills it either way).
   */
  pausePrimary(): Promise<{ port: number; resume(): void }>;
  /** The primary's port as the Sentinels announce it now. */
  primaryNow(): Promise<number>;
  /** Resolves once every replica has every write the primary had when called. */
  replicated(): Promise<void>;
  /** The servers' and Sentinels' combined log; kept after `stop` (the data is removed). */
  readonly logFile: string;
  stop(): Promise<void>;
}

export async function startRedisSentinelGroup(
  options: {
    replicas?: number;
    sentinels?: number;
    name?: string;
    /** More settings for every Redis server of the group (e.g. AOF, `min-replicas-to-write`). */
    serverArgs?: string[];
  } = {},
): Promise<RedisSentinelGroup> {
  const binary = findExecutable('redis-server');
  if (binary === undefined) {
    throw new InfraError(
      'redis-sentinel',
      'redis-server is not installed (apt-get install redis-server)',
    );
  }
  const name = options.name ?? 'underdog';
  const dir = mkdtempSync(join(tmpdir(), 'underdog-sentinel-'));
  const log = openSync(join(dir, 'servers.log'), 'a');
  const logFile = `${dir}.log`;
  const processes = new Map<number, ChildProcess>();
  const start = (port: number, args: string[]) => {
    const child = spawn(binary, args, { cwd: dir, stdio: ['ignore', log, log] });
    child.on('error', () => undefined);
    processes.set(port, child);
  };
  const redisArgs = (port: number) => [
    ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
    ...['--dbfilename', `dump-${port}.rdb`, '--save', ''],
    ...['--appendfilename', `appendonly-${port}.aof`, '--appenddirname', `aof-${port}`],
    ...(options.serverArgs ?? ['--appendonly', 'no']),
  ];

  const primaryPort = await freePort();
  start(primaryPort, redisArgs(primaryPort));
  const replicaPorts: number[] = [];
  for (let i = 0; i < (options.replicas ?? 1); i += 1) {
    const port = await freePort();
    replicaPorts.push(port);
    start(port, [...redisArgs(port), '--replicaof', '127.0.0.1', String(primaryPort)]);
  }
  const sentinelCount = options.sentinels ?? 1;
  const quorum = Math.floor(sentinelCount / 2) + 1;
  const sentinels: Array<{ host: string; port: number }> = [];
  for (let i = 0; i < sentinelCount; i += 1) {
    const port = await freePort();
    const conf = join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${primaryPort} ${quorum}`,
        `sentinel down-after-milliseconds ${name} 1000`,
        // Also how long a Sentinel waits (twice this) before trying a failover again after an
        // election that elected no leader (two Sentinels starting at once and splitting the
        // votes). With 5 s a promotion took 12.8 s once in the fault suite (2.3–2.7 s otherwise;
        // its log was not kept, so a split vote is the likely cause, not a proven one).
        `sentinel failover-timeout ${name} 2000`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    start(port, [conf, '--sentinel']);
    sentinels.push({ host: '127.0.0.1', port });
  }

  const primaryNow = async (): Promise<number> => {
    const [, port] = (await askRedis(sentinels[0]!.port, (client) =>
      client.call('SENTINEL', 'get-master-addr-by-name', name),
    )) as [string, string];
    return Number(port);
  };
  const stop = async () => {
    for (const child of processes.values()) child.kill('SIGKILL');
    await sleep(100);
    try {
      copyFileSync(join(dir, 'servers.log'), logFile);
    } catch {
      // nothing logged
    }
    rmSync(dir, { recursive: true, force: true });
  };

  // Ready when every replica is in sync and every Sentinel knows all the replicas (and the other
  // Sentinels): only then can they fail over.
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const synced = await askRedis(primaryPort, (client) => client.info('replication'));
      // `connected_slaves` counts a replica still waiting for its first full sync (Redis 7's
      // diskless sync waits 5 s for more replicas first); only `state=online` ones acknowledge
      // writes, so a WAIT right after a start counted on them would wait that sync out.
      const online = [...synced.matchAll(/^slave\d+:.*state=online/gm)].length;
      let known = online === replicaPorts.length;
      for (const sentinel of sentinels) {
        if (!known) break;
        const master = (await askRedis(sentinel.port, (client) =>
          client.call('SENTINEL', 'master', name),
        )) as string[];
        const field = (key: string) => Number(master[master.indexOf(key) + 1] ?? 0);
        known =
          field('num-slaves') === replicaPorts.length &&
          field('num-other-sentinels') === sentinelCount - 1;
      }
      if (known) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new InfraError('redis-sentinel', 'replicas or Sentinels not ready within 30 s');
    }
    await sleep(100);
  }

  const replicated = async () => {
    const port = await primaryNow();
    const info = () => askRedis(port, (client) => client.info('replication'));
    const target = Number(/master_repl_offset:(\d+)/.exec(await info())?.[1] ?? 0);
    for (let tries = 0; tries < 200; tries += 1) {
      const offsets = [...(await info()).matchAll(/^slave\d+:.*offset=(\d+)/gm)].map((m) =>
        Number(m[1]),
      );
      if (offsets.length === replicaPorts.length && offsets.every((o) => o >= target)) return;
      await sleep(50);
    }
    throw new InfraError('redis-sentinel', 'the replicas did not catch up within 10 s');
  };

  return {
    name,
    sentinels,
    primaryPort,
    primaryNow,
    replicated,
    logFile,
    killPrimary: async () => {
      const port = await primaryNow();
      processes.get(port)?.kill('SIGKILL');
      return port;
    },
    pausePrimary: async () => {
      const port = await primaryNow();
      const child = processes.get(port);
      child?.kill('SIGSTOP');
      return { port, resume: () => void child?.kill('SIGCONT') };
    },
    stop,
  };
}
