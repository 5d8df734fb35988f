// `pnpm bench:round -- --players 100000` (load/README.md): one live round of N players, measured
// end to end without sockets (issue 35, point 5). The harness's real Redis, Kafka and
// MongoDB-wire server; two real game-engine processes; a synthetic round seeded through the live
// store's own steps (the tournament's facts, N joins, the tournament's `live` event); N votes
// produced straight into `game.votes` at the voting window's pace; the engines close the round.
// It reports the apply rate, deadline → RoundResults, Redis's slowest commands, Redis memory per
// player, and checks every produced vote against the tally, the ballots and the records.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import { createKafkaBus, type BusMessage, type Subscription } from '@underdog/bus';
import { freePort, startInfra } from '@underdog/harness';
import { createLogger } from '@underdog/kit';
import { allTopics, topics } from '@underdog/platform';
import {
  GameEventSchema,
  TournamentLifecycleEventSchema,
  TournamentSchema,
  TournamentStatus,
  create,
  encodeEvent,
  fromBinary,
  timestampDate,
  timestampFromDate,
  type GameEvent,
} from '@underdog/proto';
import * as liveGameScripts from '../../packages/live-game/src';
import * as storeScripts from '../../packages/store/src';
import { createRedisStore } from '../../packages/store/src';
import { LiveGames } from '../../services/game-engine/src/adapters/live-games';
import { commandArgs, loadAverage, logFolder, wholeNumber } from './cli';
import {
  PRODUCE_CHUNK,
  benchImageOf,
  benchUserId,
  benchVote,
  benchVoteId,
  redisCpuSeconds,
  redisUsedMemory,
  sleep,
  untilAnswered,
} from './live-round-kit';
import {
  allCounted,
  bytesPerPlayer,
  checkVotes,
  countByImage,
  peakRate,
  slowestCommands,
  tallyDifferences,
  votesDueBy,
} from './round-report';

const root = join(__dirname, '..', '..');
/** The key of internal calls every distributed service needs (ADR 13); the engines get none here. */
const SERVICE_TOKEN_SECRET = randomBytes(32).toString('hex');
const ROUND = 1;
const ENGINES = 2;

function options() {
  const { values } = parseArgs({
    args: commandArgs(),
    options: {
      players: { type: 'string', default: '100000' },
      // The tournament's round time (the voting window), 5–120 s as the product allows.
      'round-seconds': { type: 'string', default: '15' },
      // Share of the window the votes are spread over (the rest is the last votes' margin).
      spread: { type: 'string', default: '0.8' },
      // GAME_VOTE_SLOTS for the engines (issue 35, point 3); unknown to an engine without slots.
      slots: { type: 'string', default: '1' },
      // Commands slower than this go to Redis's slow log (µs).
      'slowlog-us': { type: 'string', default: '1000' },
      'records-timeout-seconds': { type: 'string', default: '600' },
      'no-records': { type: 'boolean', default: false },
      // Kafka producers of the votes, one request in flight each.
      producers: { type: 'string', default: '3' },
    },
  });
  const roundSeconds = wholeNumber(values['round-seconds'], '--round-seconds');
  if (roundSeconds < 5 || roundSeconds > 120) throw new Error('--round-seconds: 5 to 120');
  const spread = Number(values.spread);
  if (!(spread > 0 && spread <= 1)) throw new Error('--spread: a share, more than 0 and at most 1');
  return {
    players: wholeNumber(values.players, '--players'),
    roundSeconds,
    spread,
    slots: wholeNumber(values.slots, '--slots'),
    producers: wholeNumber(values.producers, '--producers'),
    slowlogMicros: wholeNumber(values['slowlog-us'], '--slowlog-us'),
    recordsTimeoutMs:
      wholeNumber(values['records-timeout-seconds'], '--records-timeout-seconds') * 1000,
    records: !values['no-records'],
  };
}

interface Engine {
  name: string;
  child: ChildProcess;
  url: string;
  exited: Promise<void>;
}

/** A game-engine process from its sources (`node --require tsx/cjs`, as the e2e suites start it). */
async function startEngine(name: string, env: Record<string, string>, logDir: string) {
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

async function stopEngine(engine: Engine): Promise<void> {
  if (engine.child.exitCode !== null || engine.child.signalCode !== null) return;
  const kill = setTimeout(() => engine.child.kill('SIGKILL'), 15_000);
  engine.child.kill('SIGTERM');
  await engine.exited;
  clearTimeout(kill);
}

/** Script SHA → name, for the slow log (ioredis calls a defined script by the SHA of its body). */
function scriptNames(): Map<string, string> {
  const names = new Map<string, string>();
  for (const value of [...Object.values(liveGameScripts), ...Object.values(storeScripts)]) {
    const script = value as { name?: unknown; lua?: unknown } | null;
    if (typeof script !== 'object' || script === null) continue;
    if (typeof script.name !== 'string' || typeof script.lua !== 'string') continue;
    names.set(createHash('sha1').update(script.lua).digest('hex'), script.name);
  }
  return names;
}

/** Waits until every engine holds partitions of both its groups (no rebalance in the round). */
async function enginesJoined(bus: ReturnType<typeof createKafkaBus>, engines: number) {
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
async function votedPartitions(
  bus: ReturnType<typeof createKafkaBus>,
  before: ReadonlyMap<number, bigint>,
): Promise<number[]> {
  const used: number[] = [];
  for (const [partition, start] of before) {
    if (BigInt(await bus.endOffset(topics.gameVotes.name, partition)) > start) used.push(partition);
  }
  return used;
}

/** Resolves with the first event of `kind` for round 1 of the tournament. */
function eventWaiter() {
  const waiting = new Map<string, (event: GameEvent, receivedAt: number) => void>();
  const seen = new Map<string, { event: GameEvent; receivedAt: number }>();
  return {
    take(event: GameEvent, receivedAt: number) {
      const kind = event.kind.case;
      if (!kind || seen.has(kind)) return;
      seen.set(kind, { event, receivedAt });
      waiting.get(kind)?.(event, receivedAt);
    },
    next(kind: string, timeoutMs: number): Promise<{ event: GameEvent; receivedAt: number }> {
      const already = seen.get(kind);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${kind} in ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
        waiting.set(kind, (event, receivedAt) => {
          clearTimeout(timer);
          resolve({ event, receivedAt });
        });
      });
    },
  };
}

async function main(): Promise<void> {
  const opts = options();
  const { players } = opts;
  const loadBefore = loadAverage();
  const infra = await startInfra({ redis: true, kafka: true, mongo: true, smtp: false });
  console.log(infra.describe());
  const run = randomUUID().slice(0, 8);
  const logDir = logFolder('round-bench-');
  mkdirSync(logDir, { recursive: true });
  const logger = createLogger({ service: 'round-bench', level: 'warn' });
  const store = await createRedisStore({ url: infra.redisUrl });
  const admin = new Redis(infra.redisUrl);
  const bus = createKafkaBus({
    brokers: infra.kafkaBrokers,
    clientId: `round-bench-${run}`,
    logger,
  });
  // The votes' producers: one kafkajs producer, idempotent, has one request in flight, which at
  // a million votes in a 120 s window cannot keep the pace on this machine; chunks go to them in
  // turn, one in flight each.
  const producers = Array.from({ length: opts.producers }, (_, index) =>
    createKafkaBus({
      brokers: infra.kafkaBrokers,
      clientId: `round-bench-${run}-p${index}`,
      logger,
    }),
  );
  const live = new LiveGames(store);
  const mongoDb = `round-bench-${run}`;
  const engines: Engine[] = [];
  let events: Subscription | undefined;
  let documents: mongoose.Connection | undefined;
  // Stopped by a signal: the engines and the servers go with it.
  const onSignal = (signal: NodeJS.Signals) => {
    for (const engine of engines) engine.child.kill('SIGKILL');
    void infra.stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await bus.ensureTopics(allTopics);
    const engineEnv = {
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      REDIS_URL: infra.redisUrl,
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: mongoDb,
      LOG_LEVEL: 'warn',
      GAME_VOTE_SLOTS: String(opts.slots),
      // The results phase outlasts the checks: round 2 does not open on the bench's reads.
      GAME_RESULTS_SECONDS: '60',
    };
    for (let i = 1; i <= ENGINES; i += 1) {
      engines.push(await startEngine(`game-engine-${i}`, engineEnv, logDir));
    }
    const owners = await enginesJoined(bus, ENGINES);
    console.log(`${ENGINES} engines ready and in their groups (logs: ${logDir})`);

    const tournamentId = `round-bench-${run}`;
    const startAt = new Date(Date.now() + 3_600_000);
    const facts = {
      id: tournamentId,
      title: `Round bench ${players}`,
      prize: undefined,
      startAt,
      roundTimeSeconds: opts.roundSeconds,
    };

    // The round's audience, through the live store's own steps (the tournament's facts, as the
    // lifecycle consumer records them, then one join per player, as JoinTournament does).
    const memoryBefore = await redisUsedMemory(admin);
    const seedStart = performance.now();
    await live.recordTournament(facts);
    const JOINS_AT_ONCE = 2_000;
    for (let from = 0; from < players; from += JOINS_AT_ONCE) {
      const replies = await Promise.all(
        Array.from({ length: Math.min(JOINS_AT_ONCE, players - from) }, (_, i) => {
          const userId = benchUserId(from + i);
          return live.join(tournamentId, {
            userId,
            username: userId,
            deviceId: `device-${userId}`,
            now: Date.now(),
          });
        }),
      );
      const refused = replies.find((reply) => reply !== 'JOINED');
      if (refused) throw new Error(`a bench player's join was answered ${refused}`);
    }
    const seedMs = performance.now() - seedStart;
    const memorySeeded = await redisUsedMemory(admin);
    console.log(`${players} players joined in ${(seedMs / 1000).toFixed(1)} s`);

    // The tournament's game events, from the bench's own group.
    const waiter = eventWaiter();
    events = await bus.subscribe({
      groupId: `round-bench-${run}`,
      topics: [topics.gameEvents.name],
      fromBeginning: true,
      handleBatch: async (batch: BusMessage[]) => {
        const receivedAt = Date.now();
        for (const message of batch) {
          if (message.key !== tournamentId || !message.value) continue;
          const event = fromBinary(GameEventSchema, message.value);
          const round =
            event.kind.case === 'roundVotingStarted' ||
            event.kind.case === 'votingEnded' ||
            event.kind.case === 'roundResults'
              ? event.kind.value.roundNumber
              : 0;
          if (round === ROUND) waiter.take(event, receivedAt);
        }
      },
    });

    // Redis's slow log and latency monitor from here on: the round, not the seeding.
    await admin.config('SET', 'slowlog-log-slower-than', String(opts.slowlogMicros));
    await admin.config('SET', 'slowlog-max-len', '100000');
    await admin.slowlog('RESET');
    await admin.config('SET', 'latency-monitor-threshold', '10');
    await admin.call('LATENCY', 'RESET');
    const redisCpuBefore = await redisCpuSeconds(admin);

    // The tournament goes live, as the tournament service announces it.
    await bus.publish(topics.tournamentLifecycle.name, [
      encodeEvent(
        TournamentLifecycleEventSchema,
        create(TournamentLifecycleEventSchema, {
          tournamentId,
          occurredAt: timestampFromDate(new Date()),
          kind: {
            case: 'live',
            value: {
              tournament: create(TournamentSchema, {
                id: tournamentId,
                title: facts.title,
                status: TournamentStatus.LIVE,
                startAt: timestampFromDate(startAt),
                roundTimeSeconds: opts.roundSeconds,
              }),
            },
          },
        }),
        { key: tournamentId, id: `${tournamentId}:live` },
      ),
    ]);
    const opened = await waiter.next('roundVotingStarted', 180_000);
    if (opened.event.kind.case !== 'roundVotingStarted') throw new Error('unreachable');
    const deadline = timestampDate(opened.event.kind.value.phaseEndsAt!).getTime();
    const gameId = opened.event.gameId;
    console.log(
      `round 1 voting open (${opened.event.kind.value.remainingCount} in), ` +
        `${((deadline - Date.now()) / 1000).toFixed(1)} s to the deadline`,
    );

    // Where every partition of game.votes stands before the votes: they go where the gateway's
    // key sends them (one partition per tournament, or one per slot).
    const vote = { tournamentId, gameId, round: ROUND };
    const partitions = new Map<number, bigint>();
    for (let partition = 0; partition < topics.gameVotes.partitions; partition += 1) {
      const end = await untilAnswered(() => bus.endOffset(topics.gameVotes.name, partition));
      partitions.set(partition, BigInt(end));
    }
    const appliedSoFar = async () => {
      let applied = 0n;
      for (const [partition, start] of partitions) {
        const mark = await live.votesApplied(partition);
        if (mark > start) applied += mark - start;
      }
      return Number(applied);
    };

    // N votes at the window's pace, each stamped when it leaves.
    const spanMs = Math.max(0, (deadline - Date.now()) * opts.spread);
    const produceStart = Date.now();
    const samples: Array<[number, number]> = [[produceStart, 0]];
    let produced = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        samples.push([Date.now(), await appliedSoFar()]);
        await sleep(200);
      }
    })();
    let maxBacklog = 0;
    const slotVote = { ...vote, slots: opts.slots };
    while (produced < players) {
      const due = votesDueBy(players, Date.now() - produceStart, spanMs);
      while (produced < due) {
        const sends: Array<Promise<void>> = [];
        for (const producer of producers) {
          const count = Math.min(PRODUCE_CHUNK, due - produced);
          if (count <= 0) break;
          const castAt = new Date();
          const from = produced;
          sends.push(
            producer.publish(
              topics.gameVotes.name,
              Array.from({ length: count }, (_, i) => benchVote({ ...slotVote, castAt }, from + i)),
            ),
          );
          produced += count;
        }
        await Promise.all(sends);
      }
      const last = samples[samples.length - 1]!;
      maxBacklog = Math.max(maxBacklog, produced - last[1]);
      await sleep(20);
    }
    const producedAt = Date.now();
    if (producedAt > deadline) {
      console.warn(`the last votes left ${producedAt - deadline} ms after the deadline (late)`);
    }
    while ((await appliedSoFar()) < players && Date.now() < deadline + 600_000) await sleep(50);
    const allAppliedAt = Date.now();
    sampling = false;
    await sampler;

    const closed = await waiter.next('votingEnded', 600_000);
    const closedAt = timestampDate(closed.event.occurredAt!).getTime();
    const results = await waiter.next('roundResults', 600_000);
    if (results.event.kind.case !== 'roundResults') throw new Error('unreachable');
    const roundResults = results.event.kind.value;
    const engineResultsAt = timestampDate(results.event.occurredAt!).getTime();

    // Redis over the round.
    const slowlog = await admin.slowlog('GET', 100000);
    const slowest = slowestCommands(slowlog, 5, scriptNames()).map((entry) => ({
      ...entry,
      secondsAfterDeadline: entry.at - Math.floor(deadline / 1000),
    }));
    const latency = (await admin.call('LATENCY', 'LATEST')) as Array<
      [string, number, number, number]
    >;
    const redisCpu = (await redisCpuSeconds(admin)) - redisCpuBefore;
    const memoryAfter = await redisUsedMemory(admin);

    // Every produced vote against the round's tally, the engine's ballots and the state's total.
    const expected = new Map(
      Array.from({ length: players }, (_, n) => [benchUserId(n), benchImageOf(ROUND, n)] as const),
    );
    const expectedTally = countByImage(expected.values());
    const resultsTally = new Map(roundResults.results.map((r) => [r.imageId, r.votes] as const));
    const tallyOff = tallyDifferences(expectedTally, resultsTally);
    const ballots = await live.ballots(tournamentId, ROUND);
    const ballotCheck = checkVotes(
      expected,
      [...ballots].map(([userId, ballot]) => [userId, ballot.imageId] as const),
    );
    const wrongVoteIds = [...ballots].filter(
      ([userId, ballot]) => ballot.voteId !== benchVoteId(tournamentId, Number(userId.slice(1))),
    ).length;
    const state = await live.state(tournamentId);

    // The records: round 1's player_votes, once the engine has written them.
    let recordCheck: ReturnType<typeof checkVotes> | undefined;
    let recordsMs: number | undefined;
    if (opts.records) {
      documents = await mongoose.createConnection(infra.mongoUrl, { dbName: mongoDb }).asPromise();
      const votes = documents.db!.collection('player_votes');
      const query = { gameId, roundNumber: ROUND };
      const until = Date.now() + opts.recordsTimeoutMs;
      let stored = 0;
      while ((stored = await votes.countDocuments(query)) < players && Date.now() < until) {
        await sleep(2_000);
      }
      recordsMs = Date.now() - results.receivedAt;
      const found: Array<readonly [string, string]> = [];
      for await (const doc of votes.find(query, { projection: { userId: 1, imageId: 1 } })) {
        found.push([String(doc.userId), String(doc.imageId)]);
      }
      recordCheck = checkVotes(expected, found);
      console.log(
        `${stored} vote records of round 1 (${(recordsMs / 1000).toFixed(1)} s after the results)`,
      );
    }

    const applyMs = allAppliedAt - produceStart;
    const figures = {
      players,
      slots: opts.slots,
      engines: ENGINES,
      votesPartitionOwners: await votedPartitions(bus, partitions).then((used) =>
        used.map((p) => `${p}: ${owners.votes.get(p)}`),
      ),
      gamePartitionOwner: owners.games.get(
        await bus.partitionOf(topics.tournamentLifecycle.name, tournamentId),
      ),
      roundSeconds: opts.roundSeconds,
      spreadSeconds: Number((spanMs / 1000).toFixed(1)),
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadAverage(),
      seedSeconds: Number((seedMs / 1000).toFixed(1)),
      produced,
      producedBeforeDeadlineMs: deadline - producedAt,
      votesAppliedPerSecond: Math.round((players / applyMs) * 1000),
      peakAppliedPerSecond: peakRate(samples, 1_000),
      maxBacklogVotes: maxBacklog,
      lastVoteToAllAppliedMs: allAppliedAt - producedAt,
      allAppliedBeforeDeadlineMs: deadline - allAppliedAt,
      deadlineToVotingEndedMs: closedAt - deadline,
      deadlineToResultsMs: results.receivedAt - deadline,
      deadlineToEngineResultsMs: engineResultsAt - deadline,
      resultsTotalVotes: roundResults.totalVotes,
      stateTotalVotes: state?.totalVotes,
      tallyDifferences: tallyOff,
      ballots: ballots.size,
      ballotCheck,
      ballotsWithAnotherVoteId: wrongVoteIds,
      records: recordCheck,
      recordsAfterResultsMs: recordsMs,
      redisSlowest: slowest,
      redisLatencyLatest: latency.map(([event, , latestMs, maxMs]) => ({ event, latestMs, maxMs })),
      redisCpuMsPerVote: Number(((redisCpu * 1000) / players).toFixed(4)),
      redisBytesPerPlayerSeeded: bytesPerPlayer(memoryBefore, memorySeeded, players),
      redisBytesPerPlayerAfterRound: bytesPerPlayer(memoryBefore, memoryAfter, players),
      redisUsedMemoryAfterMb: Math.round(memoryAfter / 2 ** 20),
    };
    console.log(JSON.stringify(figures, null, 2));
    const failures = [
      roundResults.totalVotes !== players && `RoundResults total ${roundResults.totalVotes}`,
      state?.totalVotes !== players && `state total ${state?.totalVotes}`,
      tallyOff.length > 0 && 'the tally differs from the votes produced',
      !allCounted(ballotCheck, players) && 'the ballots differ from the votes produced',
      wrongVoteIds > 0 && `${wrongVoteIds} ballots with another vote id`,
      recordCheck &&
        !allCounted(recordCheck, players) &&
        'the records differ from the votes produced',
    ].filter((failure): failure is string => typeof failure === 'string');
    if (failures.length > 0) {
      console.error(`FAILED (${players} produced): ${failures.join('; ')}`);
      process.exitCode = 1;
    } else {
      console.log(
        `OK: all ${players} votes counted once (tally, ballots${opts.records ? ', records' : ''})`,
      );
    }
  } finally {
    await events?.stop();
    await Promise.all(engines.map(stopEngine));
    await documents?.close();
    await bus.close();
    for (const producer of producers) await producer.close();
    await store.close();
    admin.disconnect();
    await infra.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
