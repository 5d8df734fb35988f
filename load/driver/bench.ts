// The benchmark of one live round (load/README.md): start the distributed stack or the standalone
// process, create tournaments, seed players through the benchmark-only seam, connect them over
// `/ws` from driver processes, play round 1, and measure. `main.ts` is the command; the e2e test
// runs the same function with a few hundred players and checks that every acknowledged vote
// was counted.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import mongoose from 'mongoose';
import WebSocket from 'ws';
import { createKafkaBus } from '@underdog/bus';
import { freePort } from '@underdog/harness';
import { createLogger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import { startStack, type InfraUrls, type Stack } from '../../tools/stack/stack';
import { appOperations } from './app-operations';
import {
  PlayerDriver,
  RECONNECT_DELAY_MS,
  type DriverOptions,
  type DriverProtocol,
  type DriverPlayer,
  type DriverReport,
  type StartReport,
  type Tally,
} from './players';
import { cpuTimeline, recordCpu, timelineTable } from './cpu-timeline';
import { between, sampleProcesses, type ProcessSample } from './processes';
import {
  ackBySecond,
  percentile,
  stormFigures,
  summarise,
  VOTING_GRACE_MS,
  waitingRoomFigures,
  type RoundSummary,
  type StormFigures,
  type WaitingRoomFigures,
} from './stats';
import type { FromWorker, ToWorker } from './worker';

const root = join(__dirname, '..', '..');

export type BenchMode = 'distributed' | 'standalone';

export interface BenchOptions {
  mode: BenchMode;
  players: number;
  /** Tournaments played at once, players split evenly (each on its own `game.votes` partition). */
  tournaments: number;
  roundSeconds: number;
  /** Votes go out at random over this share of the voting window. */
  voteSpread: number;
  /**
   * How the players talk to the gateway (default `graphql-ws`: the web app's transport, votes
   * over the socket; `ws`: the spec's legacy `/ws`).
   */
  protocol?: DriverProtocol;
  /** Driver processes; 0 drives the players inside this process (the e2e test). */
  drivers: number;
  /** Gateway replicas (distributed mode): one process holds at most ~19,000 sockets here. */
  gateways: number;
  /**
   * Game-engine replicas (distributed mode; default 1). With more than one, each tournament is
   * put on a partition whose votes and whose `live` event the same replica consumes, a different
   * replica for each tournament (`enginePlacement`), so each game has a replica of its own.
   */
  engines?: number;
  logDir: string;
  /** Reuse running servers (the test harness's) instead of starting them. */
  infra?: InfraUrls;
  /** Write a V8 CPU profile of every Node process of the target here (`--cpu-prof`). */
  cpuProfileDir?: string;
  /**
   * Record every process's CPU with Linux perf over the round and print it per 10 ms around each
   * tournament's close of voting (`cpu-timeline-<n>.md` in the log folder; `--cpu-timeline`).
   */
  cpuTimeline?: boolean;
  /** Extra flags for every Node process of the target (e.g. `--trace-gc`; output in its log). */
  nodeFlags?: string[];
  /**
   * The driver processes' nice value (−20…19; below 0 needs root). Players' devices are not
   * the server's cores: a driver that waits for the CPU delays every answer it reads, and that
   * shows as server latency.
   */
  driverNice?: number;
  /**
   * The reconnect storm (distributed mode, ≥ 2 gateways): the last gateway is stopped with
   * `signal` once `atShare` of round 1's voting window has passed (default 0.4); its players
   * come back on another, as the app does (3 s ± a third, the next address of the list).
   */
  reconnectStorm?: { signal: StopSignal; atShare?: number };
  /**
   * Each gateway's WebSocket capacity (`WEBSOCKET_CAPACITY`): past it a new socket is closed
   * with 1013 (`Server full; retry in N s`) and the player waits N s ± 30 % (as the web app does) and tries again.
   */
  capacity?: number;
  log?: (line: string) => void;
}

export type StopSignal = 'SIGTERM' | 'SIGKILL';

/** What the storm measured (`BenchOptions.reconnectStorm`). */
export interface StormResult extends StormFigures {
  signal: StopSignal;
  /** The stopped gateway (index in the gateways' list). */
  gateway: number;
  /** ms after round 1's voting opened that the signal was sent. */
  stoppedAfterMs: number;
  /** Acknowledged votes of the stopped gateway's players missing from the record. */
  ackedLost: number;
}

export interface TournamentResult extends RoundSummary {
  tournamentId: string;
  partition: number;
  players: number;
  /** Votes the game's record holds for round 1 (`player_votes`, through the admin details). */
  recorded: number;
  /** Acknowledged votes missing from the record: must be empty. */
  ackedNotCounted: string[];
  /** Round 1's total as the engine tallied it in `results_started`. */
  tally: number;
}

export interface BenchResult {
  options: Omit<BenchOptions, 'log' | 'infra' | 'cpuProfileDir'>;
  connected: number;
  connectFailures: number;
  dropped: number;
  tournaments: TournamentResult[];
  /** CPU seconds from just before voting opened to the last results; peak RSS of the run. */
  processes: ProcessSample[];
  seedSeconds: number;
  connectSeconds: number;
  /** Players a full gateway turned away while connecting (still trying when the round began). */
  waiting: number;
  /** Why connections failed, by reason. */
  connectFailureReasons: Record<string, number>;
  storm?: StormResult;
  /** With `capacity`: who was turned away and got in; the tournaments' figures are for those in. */
  waitingRoom?: WaitingRoomFigures;
}

const admin = { email: 'bench-admin@underdog.test', password: 'bench-admin-1' };
const SEED_BATCH = 2000;

/** A minimal client of the gateway's REST API, as the spec's client calls it. */
class Api {
  private cookie = '';
  private readonly deviceId = `bench-${randomUUID()}`;

  constructor(readonly baseUrl: string) {}

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    // A pooled keep-alive connection the server closed meanwhile fails at once: try again.
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.once<T>(method, path, body);
      } catch (error) {
        if (!(error instanceof TypeError) || attempt >= 3) throw error;
      }
    }
  }

  private async once<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        'x-device-id': this.deviceId,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.cookie ? { cookie: this.cookie } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(600_000),
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0] ?? '';
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

/** The partition Kafka's default (Java-compatible murmur2) partitioner gives a key. */
export function partitionOf(key: string, partitions: number): number {
  const data = Buffer.from(key);
  const m = 0x5bd1e995;
  let h = 0x9747b28c ^ data.length;
  const whole = data.length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  const rest = data.length & 3;
  if (rest === 3) h ^= data[whole + 2]! << 16;
  if (rest >= 2) h ^= data[whole + 1]! << 8;
  if (rest >= 1) h = Math.imul(h ^ data[whole]!, m);
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return (h & 0x7fffffff) % partitions;
}

interface Target {
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
  LOG_LEVEL: 'warn',
};

/** Profiles are written when a process exits normally (the stack stops them with SIGTERM). */
/** The variables of every process: the bench's, and the gateways' capacity when asked. */
function targetEnv(options: BenchOptions): Record<string, string> {
  return {
    ...benchEnv,
    ...(options.capacity === undefined ? {} : { WEBSOCKET_CAPACITY: String(options.capacity) }),
  };
}

function nodeArgs(options: BenchOptions): string[] {
  const flags = options.nodeFlags ?? [];
  if (!options.cpuProfileDir) return flags;
  mkdirSync(options.cpuProfileDir, { recursive: true });
  return [...flags, '--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`];
}

async function startDistributed(options: BenchOptions): Promise<Target> {
  const stack: Stack = await startStack({
    ...(options.infra ? { infra: options.infra } : {}),
    extraGateways: Math.max(0, options.gateways - 1),
    extraEngines: Math.max(0, (options.engines ?? 1) - 1),
    logDir: options.logDir,
    logLevel: 'warn',
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

async function startStandalone(options: BenchOptions): Promise<Target> {
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

/**
 * Waits until the game engine knows the tournament: a `/ws` subscription gets its snapshot. Not
 * test-support's `waitFor` (issue 27 point 5): the driver is a benchmark program, not a test,
 * and opens one socket per look, so it looks every 300 ms.
 */
async function waitForGame(gatewayUrl: string, tournamentId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const known = await new Promise<boolean>((resolve) => {
      const socket = new WebSocket(`${gatewayUrl.replace(/^http/, 'ws')}/ws`);
      const done = (value: boolean) => {
        socket.terminate();
        resolve(value);
      };
      socket.on('open', () =>
        socket.send(JSON.stringify({ type: 'subscribe_tournament', tournamentId })),
      );
      socket.on('message', (data: Buffer) => {
        const text = data.toString();
        if (text.startsWith('{"type":"game_state_update"')) done(true);
        else if (text.startsWith('{"type":"error"')) done(false);
      });
      socket.on('error', () => done(false));
    });
    if (known) return;
    await sleep(300);
  }
  throw new Error(`the game engine never learned tournament ${tournamentId}`);
}

interface TournamentView {
  id: string;
  title: string;
  prize: string | null;
}

/**
 * The partitions each engine replica both applies the votes of (group `game-engine-votes`) and
 * runs the games of (group `game-engine` consumes the `live` events; a game runs where its
 * `live` event is consumed). Both topics have 12 partitions keyed by tournament id, so a
 * tournament is on the same partition of each. Read from Kafka, once both groups have settled
 * with every replica: the round-robin assigner deals partitions in the order of the topic's
 * metadata, which is not always the partitions' order, so `p mod replicas` guessed wrong (both
 * games of a pair ran on one replica in some runs).
 */
async function enginePlacement(brokers: string[], replicas: number): Promise<Array<Set<number>>> {
  const admin = createKafkaBus({
    brokers,
    clientId: 'bench-placement',
    logger: createLogger({ service: 'bench', level: 'silent' }),
  });
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const [votes, live] = await Promise.all([
        admin.partitionOwners('game-engine-votes', topics.gameVotes.name),
        admin.partitionOwners('game-engine', topics.tournamentLifecycle.name),
      ]);
      const members = [...new Set(votes.values())].sort();
      const settled =
        votes.size === topics.gameVotes.partitions &&
        live.size === topics.tournamentLifecycle.partitions &&
        members.length === replicas &&
        new Set(live.values()).size === replicas;
      if (settled) {
        return members.map(
          (member) =>
            new Set(
              [...votes]
                .filter(([partition, owner]) => owner === member && live.get(partition) === member)
                .map(([partition]) => partition),
            ),
        );
      }
      if (Date.now() > deadline) {
        throw new Error(`the ${replicas} engine replicas did not all join their consumer groups`);
      }
      await sleep(500);
    }
  } finally {
    await admin.close();
  }
}

/**
 * Creates a tournament far in the future on a partition not in `partitionsInUse`, and, when
 * `allowed` is given, on one of those.
 */
async function createTournament(
  api: Api,
  roundSeconds: number,
  partitionsInUse: Set<number>,
  allowed?: Set<number>,
): Promise<TournamentView & { partition: number }> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const tournament = await api.call<TournamentView>('POST', '/api/tournaments', {
      title: `Bench ${new Date().toISOString()}`,
      prize: '$1',
      startAt: new Date(Date.now() + 3_600_000).toISOString(),
      roundTimeSeconds: roundSeconds,
    });
    const partition = partitionOf(tournament.id, topics.gameVotes.partitions);
    if ((!allowed || allowed.has(partition)) && !partitionsInUse.has(partition)) {
      partitionsInUse.add(partition);
      return { ...tournament, partition };
    }
    await api.call('DELETE', `/api/tournaments/${tournament.id}`, {});
  }
  throw new Error('no tournament landed on a free game.votes partition');
}

interface SeededPlayer {
  username: string;
  sessionId: string;
  deviceId: string;
}

async function seedPlayers(
  api: Api,
  count: number,
  tournamentId: string,
): Promise<{ cookieName: string; players: SeededPlayer[] }> {
  const players: SeededPlayer[] = [];
  let cookieName = '';
  const run = randomBytes(2).toString('hex');
  for (let batch = 0; batch * SEED_BATCH < count; batch += 1) {
    const answer = await api.call<{ cookieName: string; players: SeededPlayer[] }>(
      'POST',
      '/api/benchmark/players',
      {
        count: Math.min(SEED_BATCH, count - batch * SEED_BATCH),
        label: `${run}${batch.toString(36)}`,
        tournamentId,
      },
    );
    cookieName = answer.cookieName;
    players.push(...answer.players);
  }
  return { cookieName, players };
}

/** Drives players in worker processes, or here when `drivers` is 0. */
interface Drivers {
  start(): Promise<StartReport>;
  finish(timeoutMs: number): Promise<DriverReport>;
  stop(): void;
  pids: number[];
}

function localDrivers(options: DriverOptions): Drivers {
  const driver = new PlayerDriver(options);
  return {
    start: () => driver.start(),
    finish: async (timeoutMs) => {
      const report = await driver.finished(timeoutMs);
      driver.close();
      return report;
    },
    stop: () => driver.close(),
    pids: [],
  };
}

function workerDrivers(
  options: DriverOptions,
  count: number,
  nodeFlags: string[],
  nice: number,
): Drivers {
  const workers: ChildProcess[] = [];
  for (let index = 0; index < count; index += 1) {
    workers.push(
      spawn(process.execPath, [...nodeFlags, '--import', 'tsx', join(__dirname, 'worker.ts')], {
        cwd: root,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
    const pid = workers.at(-1)?.pid;
    if (nice !== 0 && pid !== undefined) setPriority(pid, nice);
  }
  const ask = <K extends FromWorker['kind']>(
    worker: ChildProcess,
    message: ToWorker,
    kind: K,
  ): Promise<Extract<FromWorker, { kind: K }>> =>
    new Promise((resolve, reject) => {
      const onMessage = (answer: FromWorker) => {
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        if (answer.kind === 'failed') reject(new Error(`driver: ${answer.message}`));
        else if (answer.kind === kind) resolve(answer as Extract<FromWorker, { kind: K }>);
        else reject(new Error(`driver answered ${answer.kind}, expected ${kind}`));
      };
      const onExit = (code: number | null) => reject(new Error(`driver exited (${code})`));
      worker.on('message', onMessage);
      worker.once('exit', onExit);
      worker.send(message);
    });
  return {
    pids: workers.map((worker) => worker.pid ?? -1),
    async start() {
      const answers = await Promise.all(
        workers.map((worker, index) =>
          ask(
            worker,
            {
              kind: 'start',
              options: {
                ...options,
                players: options.players.filter((_, player) => player % count === index),
              },
            },
            'connected',
          ),
        ),
      );
      return {
        connected: answers.reduce((sum, answer) => sum + answer.connected, 0),
        waiting: answers.reduce((sum, answer) => sum + answer.waiting, 0),
        failed: answers.reduce((sum, answer) => sum + answer.failed, 0),
        failures: answers.reduce<Record<string, number>>((all, answer) => {
          for (const [reason, count] of Object.entries(answer.failures)) {
            all[reason] = (all[reason] ?? 0) + count;
          }
          return all;
        }, {}),
        openMs: answers.flatMap((answer) => answer.openMs),
        snapshotMs: answers.flatMap((answer) => answer.snapshotMs),
      };
    },
    async finish(timeoutMs) {
      const reports = await Promise.all(
        workers.map((worker) => ask(worker, { kind: 'finish', timeoutMs }, 'report')),
      );
      return {
        tallies: Object.assign({}, ...reports.map(({ report }) => report.tallies)) as Record<
          number,
          Tally
        >,
        connected: reports.reduce((sum, { report }) => sum + report.connected, 0),
        connectFailures: reports.reduce((sum, { report }) => sum + report.connectFailures, 0),
        dropped: reports.reduce((sum, { report }) => sum + report.dropped, 0),
        httpFailures: reports.reduce((sum, { report }) => sum + report.httpFailures, 0),
        outcomes: reports.flatMap(({ report }) => report.outcomes),
        loopDelayMs: reports.flatMap(({ report }) => report.loopDelayMs),
      };
    },
    stop() {
      for (const worker of workers) if (worker.connected) worker.disconnect();
    },
  };
}

/**
 * Round 1's votes in the game's record. Distributed mode reads `player_votes` in MongoDB
 * directly (written in one bulk at the round's resolution, before the eliminations and the
 * round document, which FerretDB writes one locked update at a time); standalone mode has no
 * database to read, so it asks the admin details (the same record, in memory).
 */
async function recordedVotes(
  api: Api,
  mongoUrl: string | undefined,
  tournamentId: string,
  expected: number,
): Promise<Array<{ username: string; imageId: string }>> {
  if (!mongoUrl) return detailsVotes(api, tournamentId, expected);
  const connection = await mongoose.createConnection(mongoUrl).asPromise();
  try {
    const db = connection.useDb('underdog-game-engine');
    return await settle(async () => {
      const game = await db.collection('games').findOne({ tournamentId });
      if (!game) return undefined;
      const votes = await db
        .collection('player_votes')
        .find({ gameId: game._id, roundNumber: 1 }, { projection: { username: 1, imageId: 1 } })
        .toArray();
      return votes.map((vote) => ({
        username: String(vote.username),
        imageId: String(vote.imageId),
      }));
    }, expected);
  } finally {
    await connection.close();
  }
}

/** Polls `read` until it has `expected` entries, stops growing for 3 s, or 60 s pass. */
async function settle<T>(read: () => Promise<T[] | undefined>, expected: number): Promise<T[]> {
  const deadline = Date.now() + 60_000;
  let last: T[] | undefined;
  let stableSince = Date.now();
  for (;;) {
    const found = await read();
    if (found && found.length >= expected) return found;
    if (found?.length !== last?.length) stableSince = Date.now();
    last = found;
    if (Date.now() > deadline || (found && found.length > 0 && Date.now() - stableSince > 3_000)) {
      return found ?? [];
    }
    await sleep(500);
  }
}

interface Details {
  rounds: Array<{ roundNumber: number; votes: Array<{ username: string; imageId: string }> }>;
}

function detailsVotes(api: Api, tournamentId: string, expected: number) {
  return settle(async () => {
    const details = await api.call<Details>(
      'GET',
      `/api/admin/tournaments/${tournamentId}/details`,
    );
    return details.rounds.find((round) => round.roundNumber === 1)?.votes;
  }, expected);
}

/** Runs one live round end to end and measures it. */
export async function runBenchmark(options: BenchOptions): Promise<BenchResult> {
  const log = options.log ?? (() => undefined);
  if (options.reconnectStorm && (options.mode !== 'distributed' || options.gateways < 2)) {
    throw new Error('--reconnect-storm: distributed mode with --gateways 2 or more');
  }
  log(`starting the ${options.mode} target…`);
  const target =
    options.mode === 'distributed'
      ? await startDistributed(options)
      : await startStandalone(options);
  let drivers: Drivers | undefined;
  try {
    const [gatewayUrl] = target.gatewayUrls as [string];
    const api = new Api(gatewayUrl);
    await api.call('POST', '/api/login', admin);

    const partitions = new Set<number>();
    const tournaments: Array<TournamentView & { partition: number }> = [];
    const engines = options.mode === 'distributed' ? (options.engines ?? 1) : 1;
    const placement =
      engines > 1 && target.kafkaBrokers
        ? await enginePlacement(target.kafkaBrokers, engines)
        : undefined;
    if (placement) {
      log(
        `engine replicas' partitions (votes and games): ${placement.map((set) => [...set].sort((a, b) => a - b).join(',') || 'none').join(' | ')}`,
      );
    }
    for (let index = 0; index < options.tournaments; index += 1) {
      const tournament = await createTournament(
        api,
        options.roundSeconds,
        partitions,
        placement?.[index % engines],
      );
      await waitForGame(gatewayUrl, tournament.id);
      tournaments.push(tournament);
    }

    log(`seeding ${options.players} players…`);
    const seedStarted = Date.now();
    const players: DriverPlayer[] = [];
    let cookieName = '';
    for (const [index, tournament] of tournaments.entries()) {
      const share =
        Math.floor(options.players / options.tournaments) +
        (index < options.players % options.tournaments ? 1 : 0);
      const seeded = await seedPlayers(api, share, tournament.id);
      cookieName = seeded.cookieName;
      for (const player of seeded.players) {
        players.push({
          ...player,
          tournament: index,
          gateway: players.length % target.gatewayUrls.length,
        });
      }
    }
    const seedSeconds = (Date.now() - seedStarted) / 1000;

    const driverOptions: DriverOptions = {
      gatewayUrls: target.gatewayUrls,
      cookieName,
      tournamentIds: tournaments.map((tournament) => tournament.id),
      players,
      sourceAddresses: Array.from(
        { length: Math.max(2, Math.ceil(options.players / 5000)) },
        (_, index) => `127.0.0.${index + 2}`,
      ),
      voteSpread: options.voteSpread,
      connectConcurrency: 100,
      protocol: options.protocol ?? 'graphql-ws',
      operations: appOperations(),
      ...(options.reconnectStorm ? { reconnect: { delayMs: RECONNECT_DELAY_MS } } : {}),
    };
    const driverCount = options.drivers > 0 ? options.drivers : 0;
    drivers =
      driverCount > 0
        ? workerDrivers(
            driverOptions,
            driverCount,
            options.nodeFlags ?? [],
            options.driverNice ?? 0,
          )
        : localDrivers(driverOptions);
    log(
      `connecting ${players.length} players over ${driverOptions.protocol} from ${Math.max(1, driverCount)} driver(s)…`,
    );
    const connectStarted = Date.now();
    const { connected, waiting, failed, failures, openMs, snapshotMs } = await drivers.start();
    const connectSeconds = (Date.now() - connectStarted) / 1000;
    log(
      `connected ${connected} (${failed} failed, ${waiting} turned away by a full gateway and retrying) in ${connectSeconds.toFixed(1)} s; upgrade p50/p99 ${percentile(openMs, 50).toFixed(0)}/${percentile(openMs, 99).toFixed(0)} ms, snapshot p50/p99 ${percentile(snapshotMs, 50).toFixed(0)}/${percentile(snapshotMs, 99).toFixed(0)} ms`,
    );

    if (failed > 0) log(`connections failed: ${JSON.stringify(failures)}`);
    // The storm's clock: round 1's voting as a visitor on the gateway that stays sees it.
    const stormVoting = options.reconnectStorm
      ? await roundOneVoting(gatewayUrl, tournaments[0]!.id, options.roundSeconds)
      : undefined;
    // Start now: the scheduler makes each tournament live within its poll, round 1 follows.
    const startAt = new Date(Date.now() + 3_000).toISOString();
    for (const tournament of tournaments) {
      await api.call('PUT', `/api/tournaments/${tournament.id}`, {
        title: tournament.title,
        prize: tournament.prize ?? '$1',
        startAt,
        roundTimeSeconds: options.roundSeconds,
      });
    }
    const named = new Map(target.named);
    drivers.pids.forEach((pid, index) => named.set(pid, `driver-${index + 1}`));
    const slowlog = target.redisUrl ? await RedisSlowlog.start(target.redisUrl) : undefined;
    const before = sampleProcesses(named);
    const cpu = options.cpuTimeline
      ? await recordCpu(
          before.map((sample) => sample.pid),
          join(options.logDir, 'cpu-timeline.csv'),
        )
      : undefined;
    log(`playing round 1 (${options.roundSeconds} s of voting)…`);
    const storm =
      stormVoting && options.reconnectStorm
        ? stopMidVoting(target, stormVoting, options.roundSeconds, options.reconnectStorm, log)
        : undefined;
    // Settled here, awaited after the round: a failed stop must not go unhandled meanwhile.
    storm?.catch(() => undefined);
    const report = await drivers.finish((options.roundSeconds + 90) * 1000);
    const stopped = await storm;
    const after = sampleProcesses(named);
    if (cpu) {
      const { intervals, perfCpuSeconds, startedAt } = await cpu.stop();
      log(`cpu timeline: perf itself took ${perfCpuSeconds.toFixed(1)} s of CPU over the round`);
      const names = new Map(before.map((sample) => [sample.pid, sample.name]));
      for (const [index, tournament] of tournaments.entries()) {
        const closedAt = report.tallies[index]?.closedAt;
        if (closedAt === undefined) continue;
        const table = timelineTable(
          cpuTimeline(intervals, {
            startedAt,
            origin: closedAt,
            processOf: cpu.processOf,
            names,
            fromMs: -20,
            toMs: 120,
          }),
          `CPU ms per process around the close of ${tournament.id.slice(0, 8)} (perf stat -I 10, per thread):`,
        );
        writeFileSync(join(options.logDir, `cpu-timeline-${index + 1}.md`), `${table}\n`);
        log(table);
      }
    }
    await saveMetrics(target.gatewayUrls, options.logDir, log);
    await slowlog?.save(join(options.logDir, 'redis-slowlog.json'), log);
    // Every player's outcome (vote time, answer, latencies), for looking into a slow tail.
    writeFileSync(join(options.logDir, 'outcomes.json'), JSON.stringify(report.outcomes));
    if (report.httpFailures > 0) {
      log(`${report.httpFailures} of the players' HTTP reads (liveGame) failed or were refused`);
    }
    log(
      `driver event-loop delay over the round, p99/max ms: ${report.loopDelayMs
        .map((delay) => `${delay.p99.toFixed(0)}/${delay.max.toFixed(0)}`)
        .join(', ')}`,
    );
    for (const [index, tournament] of tournaments.entries()) {
      const seconds = ackBySecond(report.outcomes.filter((o) => o.tournament === index));
      const resolved = report.tallies[index]?.resolvedAfterCloseMs;
      log(
        `${tournament.id.slice(0, 8)} resolved by the engine ${resolved?.toFixed(0) ?? '?'} ms after the close of voting`,
      );
      log(
        `${tournament.id.slice(0, 8)} ack p99/max ms by second of voting: ${seconds
          .map((s) => `${s.second}:${s.p99.toFixed(0)}/${s.max.toFixed(0)}`)
          .join(' ')}`,
      );
    }

    const results: TournamentResult[] = [];
    // With a capacity, the targets are for the players that were in when voting opened.
    const votingOpenedAt = (index: number) =>
      (report.tallies[index]?.closedAt ?? Infinity) - VOTING_GRACE_MS - options.roundSeconds * 1000;
    for (const [index, tournament] of tournaments.entries()) {
      const all = report.outcomes.filter((outcome) => outcome.tournament === index);
      const outcomes =
        options.capacity === undefined
          ? all
          : all.filter((o) => o.inAt !== undefined && o.inAt <= votingOpenedAt(index));
      const acked = all.filter((outcome) => outcome.answer === 'vote_processed');
      const votes = await recordedVotes(api, target.mongoUrl, tournament.id, acked.length);
      const recorded = new Set(votes.map((vote) => `${vote.username} ${vote.imageId}`));
      const ackedNotCounted = acked
        .map((outcome) => `${outcome.username} ${outcome.votedImageId ?? ''}`)
        .filter((vote) => !recorded.has(vote));
      results.push({
        tournamentId: tournament.id,
        partition: tournament.partition,
        players: outcomes.length,
        recorded: votes.length,
        ackedNotCounted,
        tally: report.tallies[index]?.totalVotes ?? 0,
        ...summarise(outcomes),
      });
    }
    return {
      options: {
        mode: options.mode,
        protocol: options.protocol ?? 'graphql-ws',
        players: options.players,
        tournaments: options.tournaments,
        roundSeconds: options.roundSeconds,
        voteSpread: options.voteSpread,
        drivers: options.drivers,
        gateways: options.gateways,
        engines: options.engines ?? 1,
        logDir: options.logDir,
        ...(options.reconnectStorm ? { reconnectStorm: options.reconnectStorm } : {}),
        ...(options.capacity === undefined ? {} : { capacity: options.capacity }),
      },
      connected: report.connected,
      connectFailures: report.connectFailures,
      dropped: report.dropped,
      tournaments: results,
      processes: between(before, after),
      seedSeconds,
      connectSeconds,
      waiting,
      connectFailureReasons: failures,
      ...(stopped
        ? {
            storm: {
              ...stormFigures(report.outcomes, stopped),
              signal: stopped.signal,
              gateway: stopped.gateway,
              stoppedAfterMs: stopped.stoppedAt - stopped.votingOpenedAt,
              ackedLost: results
                .flatMap((result) => result.ackedNotCounted)
                .filter((vote) =>
                  onStoppedGateway(report.outcomes, stopped.gateway).has(vote.split(' ')[0]!),
                ).length,
            },
          }
        : {}),
      ...(options.capacity === undefined
        ? {}
        : { waitingRoom: waitingRoomFigures(report.outcomes, votingOpenedAt(0)) }),
    };
  } finally {
    drivers?.stop();
    await target.stop();
  }
}

/**
 * Round 1's voting as a visitor on `/ws` of `gatewayUrl` sees it: resolves once subscribed, to
 * a promise of when voting opened (epoch ms: the deadline less the round time). Subscribe
 * before the tournament starts.
 */
async function roundOneVoting(
  gatewayUrl: string,
  tournamentId: string,
  roundSeconds: number,
): Promise<{ opened: Promise<number> }> {
  const socket = new WebSocket(`${gatewayUrl.replace(/^http/, 'ws')}/ws`);
  let opened: (at: number) => void = () => undefined;
  let failed: (error: Error) => void = () => undefined;
  const votingOpened = new Promise<number>((resolve, reject) => {
    opened = resolve;
    failed = reject;
  });
  votingOpened.catch(() => undefined);
  const timer = setTimeout(() => {
    failed(new Error('round 1 did not start within 120 s'));
    socket.terminate();
  }, 120_000);
  votingOpened.finally(() => clearTimeout(timer)).catch(() => undefined);
  await new Promise<void>((subscribed, reject) => {
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'subscribe_tournament', tournamentId })),
    );
    socket.on('error', reject);
    socket.on('close', () => failed(new Error('the storm watcher was closed')));
    socket.on('message', (data: Buffer) => {
      const text = data.toString();
      if (text.startsWith('{"type":"game_state_update"')) subscribed();
      else if (text.startsWith('{"type":"round_voting_started"')) {
        const { roundNumber, phaseEndsAt } = JSON.parse(text) as {
          roundNumber: number;
          phaseEndsAt: string;
        };
        if (roundNumber !== 1) return;
        opened(Date.parse(phaseEndsAt) - roundSeconds * 1000);
        socket.close();
      }
    });
  });
  return { opened: votingOpened };
}

/**
 * The storm: once `atShare` of round 1's voting window has passed, stops the last gateway with
 * the signal, and tells when, and which players were on it.
 */
async function stopMidVoting(
  target: Target,
  voting: { opened: Promise<number> },
  roundSeconds: number,
  storm: { signal: StopSignal; atShare?: number },
  log: (line: string) => void,
) {
  const votingOpenedAt = await voting.opened;
  await sleep(votingOpenedAt + (storm.atShare ?? 0.4) * roundSeconds * 1000 - Date.now());
  const gateway = target.gatewayUrls.length - 1;
  if (!target.stopGateway) throw new Error('this target cannot stop a gateway');
  const stoppedAt = Date.now();
  await target.stopGateway(gateway, storm.signal);
  log(
    `reconnect storm: gateway ${gateway + 1} stopped (${storm.signal}) ${stoppedAt - votingOpenedAt} ms into voting; gone after ${Date.now() - stoppedAt} ms`,
  );
  return { gateway, signal: storm.signal, stoppedAt, votingOpenedAt };
}

/**
 * Redis's slow log over the round: every command of 2 ms or more, with when it ran
 * (`redis-slowlog.json` in the log folder). Redis runs one command at a time, so one slow
 * script delays every vote's admission behind it.
 */
class RedisSlowlog {
  private constructor(private readonly redis: Redis) {}

  static async start(url: string): Promise<RedisSlowlog> {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    await redis.config('SET', 'slowlog-log-slower-than', '2000');
    await redis.config('SET', 'slowlog-max-len', '4096');
    await redis.call('SLOWLOG', 'RESET');
    return new RedisSlowlog(redis);
  }

  async save(file: string, log: (line: string) => void): Promise<void> {
    try {
      const entries = (await this.redis.call('SLOWLOG', 'GET', '4096')) as Array<
        [number, number, number, string[]]
      >;
      const slow = entries.map(([, at, micros, command]) => ({
        at: new Date(at * 1000).toISOString(),
        ms: micros / 1000,
        command: command.slice(0, 4).join(' ').slice(0, 120),
      }));
      writeFileSync(file, JSON.stringify(slow, null, 1));
      const worst = [...slow].sort((a, b) => b.ms - a.ms).slice(0, 3);
      log(
        `redis: ${slow.length} command(s) of 2 ms or more; slowest ${worst
          .map((entry) => `${entry.ms.toFixed(1)} ms (${entry.command.slice(0, 40)})`)
          .join(', ')}`,
      );
    } finally {
      this.redis.disconnect();
    }
  }
}

/**
 * Each gateway's Prometheus metrics after the round (`gateway-<n>.metrics` in the log folder):
 * its own view of the votes (admission outcomes, acknowledgement histogram, RPC counts).
 */
async function saveMetrics(
  gatewayUrls: string[],
  logDir: string,
  log: (line: string) => void,
): Promise<void> {
  for (const [index, url] of gatewayUrls.entries()) {
    try {
      const response = await fetch(`${url}/metrics`);
      writeFileSync(join(logDir, `gateway-${index + 1}.metrics`), await response.text());
    } catch (error) {
      log(`metrics of ${url} not saved: ${String(error)}`);
    }
  }
}

/** The usernames of the players that started on `gateway`. */
function onStoppedGateway(outcomes: DriverReport['outcomes'], gateway: number): Set<string> {
  return new Set(outcomes.filter((o) => o.gateway === gateway).map((o) => o.username));
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
