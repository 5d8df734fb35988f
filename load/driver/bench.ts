// Over 300 lines: the run's options and figures, documented field by field, and its steps in order.
// The benchmark of one live round (load/README.md): start the distributed stack or the standalone
// process, create tournaments, seed players through the benchmark-only seam, connect them over
// `/ws` from driver processes, play round 1, and measure. `main.ts` is the command; the e2e test
// runs the same function with a few hundred players and checks that every acknowledged vote
// was counted.
import { join } from 'node:path';
import type { InfraUrls } from '../../tools/stack/stack';
import { appOperations } from './app-operations';
import type { Arrival } from './arrival';
import { recordCpu } from './cpu-timeline';
import { localDrivers, workerDrivers, type Drivers } from './drivers';
import { Api, admin } from './gateway-api';
import type { DriverOptions, DriverProtocol } from './driver-contract';
import { RECONNECT_DELAY_MS } from './players';
import { between, sampleProcesses, type ProcessSample } from './processes';
import { RedisSlowlog, logRound, recordedVotes, saveCpuTimelines, saveMetrics } from './records';
import { createTournaments, seedTournaments } from './seeding';
import {
  percentile,
  stormFigures,
  summarise,
  VOTING_GRACE_MS,
  waitingRoomFigures,
  type RoundSummary,
  type StormFigures,
  type WaitingRoomFigures,
} from './stats';
import { onStoppedGateway, roundOneVoting, stopMidVoting } from './storm';
import { startDistributed, startStandalone, type BenchMode, type StopSignal } from './target';

export type { BenchMode, StopSignal } from './target';

export interface BenchOptions {
  mode: BenchMode;
  players: number;
  /** Tournaments played at once, players split evenly (each on its own `game.votes` partition). */
  tournaments: number;
  roundSeconds: number;
  /** Votes go out at random over this share of the voting window. */
  voteSpread: number;
  /** How: uniformly, or 80 % in the window's first 5 s (`voteDelayMs`); default uniform. */
  arrival?: Arrival;
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
  /** Each driver process's event-loop delay over the round (p99, max ms): a loaded driver lies. */
  driverLoopDelayMs: Array<{ p99: number; max: number }>;
  storm?: StormResult;
  /** With `capacity`: who was turned away and got in; the tournaments' figures are for those in. */
  waitingRoom?: WaitingRoomFigures;
}

/** Tries to set the tournaments' start before giving up (each refused because it had passed). */
const START_ATTEMPTS = 3;

/** A start 3 s from now, as the tournament API takes it. */
function soon(): string {
  return new Date(Date.now() + 3_000).toISOString();
}

/** The API refused a start because it had passed by the time the request was handled. */
function isPastStart(error: unknown): boolean {
  return error instanceof Error && error.message.includes('Start time must be in the future');
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
    const tournaments = await createTournaments(
      api,
      target,
      {
        count: options.tournaments,
        roundSeconds: options.roundSeconds,
        engines: options.mode === 'distributed' ? (options.engines ?? 1) : 1,
      },
      log,
    );

    log(`seeding ${options.players} players…`);
    const seedStarted = Date.now();
    const { cookieName, players } = await seedTournaments(
      api,
      tournaments,
      options.players,
      target.gatewayUrls.length,
    );
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
      arrival: options.arrival ?? 'uniform',
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
    let startAt = soon();
    for (const tournament of tournaments) {
      for (let attempt = 1; ; attempt += 1) {
        try {
          await api.call('PUT', `/api/tournaments/${tournament.id}`, {
            title: tournament.title,
            prize: tournament.prize ?? '$1',
            startAt,
            roundTimeSeconds: options.roundSeconds,
          });
          break;
        } catch (error) {
          // A loaded stack answered after the start had passed (a CI run: "Start time must be in
          // the future"): the start moves on, for this tournament and the ones after it.
          if (attempt >= START_ATTEMPTS || !isPastStart(error)) throw error;
          startAt = soon();
        }
      }
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
      await saveCpuTimelines(cpu, before, tournaments, report.tallies, options.logDir, log);
    }
    await saveMetrics(target.gatewayUrls, options.logDir, log);
    await slowlog?.save(join(options.logDir, 'redis-slowlog.json'), log);
    logRound(report, tournaments, options.logDir, log);

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
        arrival: options.arrival ?? 'uniform',
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
      driverLoopDelayMs: report.loopDelayMs,
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
