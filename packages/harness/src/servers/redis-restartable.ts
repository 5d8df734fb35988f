import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../ports';
import { InfraError } from '../process';
import { askRedis } from './redis-ask';
import { findExecutable } from '../util';

/**
 * A Redis of a test's own that the test may SIGKILL and start again on the same port and data
 * directory — as a crashed Redis pod comes back. With `appendfsync: 'always'` every write acknowledged
 * before the kill is in the AOF; `'none'` runs without persistence (it comes back empty).
 */
export interface RestartableRedis {
  readonly url: string;
  kill(): void;
  /** SIGSTOP: the server stays connected and answers nothing, as a stalled primary does. */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
  /** Starts it again (same port, same directory); resolves when it answers PING. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRestartableRedis(
  options: { appendfsync?: 'always' | 'everysec' | 'none' } = {},
): Promise<RestartableRedis> {
  const binary = findExecutable('redis-server');
  if (binary === undefined) {
    throw new InfraError('redis', 'redis-server is not installed (apt-get install redis-server)');
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'underdog-redis-'));
  const log = openSync(join(dir, 'redis.log'), 'a');
  const fsync = options.appendfsync ?? 'always';
  const args = [
    ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''],
    ...(fsync === 'none'
      ? ['--appendonly', 'no']
      : ['--appendonly', 'yes', '--appendfsync', fsync]),
  ];
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(binary, args, { cwd: dir, stdio: ['ignore', log, log] });
    child.on('error', () => undefined);
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        // Loading the AOF answers LOADING until done.
        if ((await askRedis(port, (client) => client.ping())) === 'PONG') return;
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) throw new InfraError('redis', `not answering on ${port} in 30 s`);
      await sleep(50);
    }
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill: () => void child?.kill('SIGKILL'),
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    start,
    stop: async () => {
      child?.kill('SIGKILL');
      await sleep(50);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
