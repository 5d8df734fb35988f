// `pnpm bench:round -- --players 100000` (load/README.md): one live round of N players, measured
// end to end without sockets (issue 35, point 5). The harness's real Redis, Kafka and
// MongoDB-wire server; two real game-engine processes; a synthetic round seeded through the live
// store's own steps (the tournament's facts, N joins, the tournament's `live` event); N votes
// produced straight into `game.votes` at the voting window's pace; the engines close the round.
// It reports the apply rate, deadline → RoundResults, Redis's slowest commands, Redis memory per
// player, and checks every produced vote against the tally, the ballots and the records.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import { createKafkaBus, type Subscription } from '@underdog/bus';
import { startInfra } from '@underdog/harness';
import { createLogger } from '@underdog/kit';
import { allTopics, topics } from '@underdog/platform';
import { timestampDate } from '@underdog/proto';
import { createRedisStore } from '../../packages/store/src';
import { LiveGames } from '../../services/game-engine/src/adapters/live-games';
import { loadAverage, logFolder } from './cli';
import { redisCpuSeconds, redisUsedMemory, untilAnswered } from './live-round-kit';
import { checkRecords, checkRound, redisOverRound } from './round-checks';
import {
  enginesJoined,
  startEngine,
  stopEngine,
  votedPartitions,
  type Engine,
} from './round-engines';
import { announceLive, eventWaiter, followRound } from './round-events';
import { options } from './round-options';
import { allCounted, bytesPerPlayer, checkVotes, peakRate } from './round-report';
import { seedAudience } from './round-seeding';
import { appliedSince, produceVotes } from './round-votes';

const ROUND = 1;
const ENGINES = 2;

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
    await seedAudience(live, facts, players);
    const seedMs = performance.now() - seedStart;
    const memorySeeded = await redisUsedMemory(admin);
    console.log(`${players} players joined in ${(seedMs / 1000).toFixed(1)} s`);

    // The tournament's game events, from the bench's own group.
    const waiter = eventWaiter();
    events = await followRound(bus, `round-bench-${run}`, tournamentId, ROUND, waiter);

    // Redis's slow log and latency monitor from here on: the round, not the seeding.
    await admin.config('SET', 'slowlog-log-slower-than', String(opts.slowlogMicros));
    await admin.config('SET', 'slowlog-max-len', '100000');
    await admin.slowlog('RESET');
    await admin.config('SET', 'latency-monitor-threshold', '10');
    await admin.call('LATENCY', 'RESET');
    const redisCpuBefore = await redisCpuSeconds(admin);

    // The tournament goes live, as the tournament service announces it.
    await announceLive(bus, facts);
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
    const appliedSoFar = appliedSince(live, partitions);

    // N votes at the window's pace, each stamped when it leaves.
    const { spanMs, produceStart, samples, produced, maxBacklog, producedAt, allAppliedAt } =
      await produceVotes({
        producers,
        players,
        deadline,
        spread: opts.spread,
        slotVote: { ...vote, slots: opts.slots },
        appliedSoFar,
      });

    const closed = await waiter.next('votingEnded', 600_000);
    const closedAt = timestampDate(closed.event.occurredAt!).getTime();
    const results = await waiter.next('roundResults', 600_000);
    if (results.event.kind.case !== 'roundResults') throw new Error('unreachable');
    const roundResults = results.event.kind.value;
    const engineResultsAt = timestampDate(results.event.occurredAt!).getTime();

    // Redis over the round.
    const { slowest, latency, redisCpu, memoryAfter } = await redisOverRound(
      admin,
      deadline,
      redisCpuBefore,
    );

    // Every produced vote against the round's tally, the engine's ballots and the state's total.
    const { expected, tallyOff, ballots, ballotCheck, wrongVoteIds, state } = await checkRound(
      live,
      tournamentId,
      ROUND,
      players,
      roundResults,
    );

    // The records: round 1's player_votes, once the engine has written them.
    let recordCheck: ReturnType<typeof checkVotes> | undefined;
    let recordsMs: number | undefined;
    if (opts.records) {
      documents = await mongoose.createConnection(infra.mongoUrl, { dbName: mongoDb }).asPromise();
      ({ recordCheck, recordsMs } = await checkRecords(
        documents,
        { gameId, roundNumber: ROUND },
        expected,
        players,
        opts.recordsTimeoutMs,
        results.receivedAt,
      ));
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
