/**
 * The round bench's game-engine processes: started from their sources, stopped, and waited on until
 * both hold partitions of their groups; which `game.votes` partitions the votes went to.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import type { createKafkaBus } from '@underdog/bus';
import { freePort } from '@underdog/harness';
import { topics } from '@underdog/platform';
import { sleep } from './live-round-kit';

const root = join(__dirname, '..', '..');
/** The key of internal calls every distributed service needs (ADR 13); the engines get none here. */
const SERVICE_TOKEN_SECRET = randomBytes(32).toString('hex');

export interface Engine {
  name: string;
  child: ChildProcess;
  url: string;
  exited: Promise<void>;
}

/** A game-engine process from its sources (`node --require tsx/cjs`, as the e2e suites start it). */
export async function startEngine(name: string, env: Record<string, string>, logDir: string) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--require', require.resolve('tsx/cjs'), join(root, 'services/game-engine/src/main.ts')],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        ...env,
        NODE_ENV: 'development',
        SERVICE_TOKEN_SECRET,
        HOST: '127.0.0.1',
        PORT: String(port),
        INSTANCE_ID: name,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const log = createWriteStream(join(logDir, `${name}.log`), { flags: 'a' });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const engine: Engine = { name, child, url: `http://127.0.0.1:${port}`, exited };
  const until = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited at start (log: ${logDir})`);
    const ready = await fetch(`${engine.url}/readyz`)
      .then((response) => response.ok)
      .catch(() => false);
    if (ready) return engine;
    if (Date.now() > until) throw new Error(`${name} not ready in 120 s (log: ${logDir})`);
    await sleep(250);
  }
}

export async function stopEngine(engine: Engine): Promise<void> {
  if (engine.child.exitCode !== null || engine.child.signalCode !== null) return;
  const kill = setTimeout(() => engine.child.kill('SIGKILL'), 15_000);
  engine.child.kill('SIGTERM');
  await engine.exited;
  clearTimeout(kill);
}

/** Waits until every engine holds partitions of both its groups (no rebalance in the round). */
export async function enginesJoined(bus: ReturnType<typeof createKafkaBus>, engines: number) {
  const until = Date.now() + 120_000;
  for (;;) {
    const [votes, games] = await Promise.all([
      bus.partitionOwners('game-engine-votes', topics.gameVotes.name),
      bus.partitionOwners('game-engine', topics.tournamentLifecycle.name),
    ]);
    if (
      votes.size === topics.gameVotes.partitions &&
      games.size === topics.tournamentLifecycle.partitions &&
      new Set(votes.values()).size === engines &&
      new Set(games.values()).size === engines
    ) {
      return { votes, games };
    }
    if (Date.now() > until) throw new Error(`the ${engines} engines did not join their groups`);
    await sleep(500);
  }
}

/** The partitions of game.votes whose end moved past where it stood before the votes. */
export async function votedPartitions(
  bus: ReturnType<typeof createKafkaBus>,
  before: ReadonlyMap<number, bigint>,
): Promise<number[]> {
  const used: number[] = [];
  for (const [partition, start] of before) {
    if (BigInt(await bus.endOffset(topics.gameVotes.name, partition)) > start) used.push(partition);
  }
  return used;
}
