// What a round leaves behind, read after it: round 1's votes in the game's record (the
// acknowledged votes are checked against it), each gateway's metrics and Redis's slow log.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import mongoose from 'mongoose';
import { cpuTimeline, timelineTable, type CpuRecorder } from './cpu-timeline';
import type { Api } from './gateway-api';
import type { DriverReport } from './driver-contract';
import type { ProcessSample } from './processes';
import { ackBySecond } from './stats';

/**
 * Round 1's votes in the game's record. Distributed mode reads `player_votes` in MongoDB
 * directly (written in one bulk at the round's resolution, before the eliminations and the
 * round document, which FerretDB writes one locked update at a time); standalone mode has no
 * database to read, so it asks the admin details (the same record, in memory).
 */
export async function recordedVotes(
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

/**
 * Redis's slow log over the round: every command of 2 ms or more, with when it ran
 * (`redis-slowlog.json` in the log folder). Redis runs one command at a time, so one slow
 * script delays every vote's admission behind it.
 */
export class RedisSlowlog {
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
export async function saveMetrics(
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

/**
 * The CPU timeline around each tournament's close of voting (`--cpu-timeline`), printed and
 * written to `cpu-timeline-<n>.md` in the log folder.
 */
export async function saveCpuTimelines(
  cpu: CpuRecorder,
  before: ProcessSample[],
  tournaments: Array<{ id: string }>,
  tallies: DriverReport['tallies'],
  logDir: string,
  log: (line: string) => void,
): Promise<void> {
  const { intervals, perfCpuSeconds, startedAt } = await cpu.stop();
  log(`cpu timeline: perf itself took ${perfCpuSeconds.toFixed(1)} s of CPU over the round`);
  const names = new Map(before.map((sample) => [sample.pid, sample.name]));
  for (const [index, tournament] of tournaments.entries()) {
    const closedAt = tallies[index]?.closedAt;
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
    writeFileSync(join(logDir, `cpu-timeline-${index + 1}.md`), `${table}\n`);
    log(table);
  }
}

/**
 * Every player's outcome (`outcomes.json`), and what the log shows of the round: the players'
 * failed HTTP reads, the drivers' event-loop delay, and per tournament when the engine resolved
 * the round and the acknowledgements' tail by second of voting.
 */
export function logRound(
  report: DriverReport,
  tournaments: Array<{ id: string }>,
  logDir: string,
  log: (line: string) => void,
): void {
  // Every player's outcome (vote time, answer, latencies), for looking into a slow tail.
  writeFileSync(join(logDir, 'outcomes.json'), JSON.stringify(report.outcomes));
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
}
