// `pnpm bench:apply -- --players 5000` (load/README.md): the engine's votes consumer alone,
// measured. A synthetic live round of N players is seeded in a real Redis, N votes are produced
// into a real Kafka `game.votes`, then the engine's votes consumer (in this process, wired as
// services/game-engine/src/service.ts wires it) applies them; it reports votes applied per
// second, the engine's and Redis's CPU per vote, and checks every produced vote was counted.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { batchConsumer, createKafkaBus, type BusMessage } from '@underdog/bus';
import { startInfra } from '@underdog/harness';
import { createLogger, createMetricsRegistry } from '@underdog/kit';
import { topics } from '@underdog/platform';
import { gameKeys, votesProgressKey } from '../../packages/live-game/src';
import { createRedisStore } from '../../packages/store/src';
import { LiveGames } from '../../services/game-engine/src/adapters/live-games';
import { VoteBatches } from '../../services/game-engine/src/adapters/vote-batches';
import { VotesApplier } from '../../services/game-engine/src/application/votes';
import { engineMetrics } from '../../services/game-engine/src/metrics';
import { commandArgs, wholeNumber } from './cli';
import { PRODUCE_CHUNK, benchVote, redisCpuSeconds, untilAnswered } from './live-round-kit';

function options() {
  const { values } = parseArgs({
    args: commandArgs(),
    options: {
      players: { type: 'string', default: '5000' },
      // Both, or neither: then the harness starts its own (one Redis, one Kafka broker).
      'redis-url': { type: 'string' },
      'kafka-brokers': { type: 'string' },
      'timeout-seconds': { type: 'string', default: '600' },
    },
  });
  const redisUrl = values['redis-url'];
  const brokers = values['kafka-brokers'];
  if ((redisUrl === undefined) !== (brokers === undefined)) {
    throw new Error('--redis-url and --kafka-brokers: both, or neither');
  }
  return {
    players: wholeNumber(values.players, '--players'),
    timeoutMs: wholeNumber(values['timeout-seconds'], '--timeout-seconds') * 1000,
    infra: redisUrl && brokers ? { redisUrl, kafkaBrokers: brokers.split(',') } : undefined,
  };
}

async function main(): Promise<void> {
  const { players, timeoutMs, infra: given } = options();
  const started = given
    ? undefined
    : await startInfra({ redis: true, kafka: true, mongo: false, smtp: false });
  if (started) console.log(started.describe());
  const infra = given ?? started!;
  const logger = createLogger({ service: 'apply-bench', level: 'warn' });
  const run = randomUUID();
  const keyPrefix = `apply-bench:${run}:`;
  const store = await createRedisStore({ url: infra.redisUrl, keyPrefix });
  const admin = new Redis(infra.redisUrl);
  const bus = createKafkaBus({
    brokers: infra.kafkaBrokers,
    clientId: `apply-bench-${run}`,
    logger,
  });
  const live = new LiveGames(store);
  const applier = new VotesApplier(
    live,
    new VoteBatches(store),
    engineMetrics(createMetricsRegistry(`apply-bench-${run}`)),
    logger,
  );
  let stopConsumer: (() => Promise<void>) | undefined;
  try {
    await bus.ensureTopics([topics.gameVotes]);
    const tournamentId = `apply-bench-${run}`;
    const gameId = `game-${run}`;
    const keys = gameKeys(tournamentId);
    const partition = await bus.partitionOf(topics.gameVotes.name, tournamentId);

    // The round: live, in voting with a deadline far ahead, every player alive.
    const seedStart = performance.now();
    await store.hSet(keys.state, {
      tournamentStatus: 'live',
      gameId,
      phase: 'voting',
      round: 1,
      votingEndsAt: Date.now() + 24 * 3600_000,
    });
    await store.sAddMembers(
      keys.alive,
      Array.from({ length: players }, (_, n) => `p${n}`),
    );
    const seedMs = performance.now() - seedStart;

    // The backlog: N votes on the tournament's partition, before the consumer starts.
    const startOffset = BigInt(
      await untilAnswered(() => bus.endOffset(topics.gameVotes.name, partition)),
    );
    const produceStart = performance.now();
    for (let from = 0; from < players; from += PRODUCE_CHUNK) {
      const castAt = new Date();
      const chunk = Array.from({ length: Math.min(PRODUCE_CHUNK, players - from) }, (_, i) =>
        benchVote({ tournamentId, gameId, round: 1, castAt }, from + i),
      );
      await bus.publish(topics.gameVotes.name, chunk);
    }
    const produceMs = performance.now() - produceStart;
    const endOffset = BigInt(await bus.endOffset(topics.gameVotes.name, partition));
    // The consumer resumes from the applied mark (docs/adr/0009): start it where this run's
    // votes begin, so a reused Kafka's older messages are not replayed into the figures.
    await store.set(votesProgressKey(partition), String(startOffset));

    // The engine's votes consumer, as service.ts wires it.
    let firstBatchAt: number | undefined;
    let cpuAtFirstBatch: NodeJS.CpuUsage | undefined;
    let batches = 0;
    const consumer = batchConsumer(bus, {
      name: 'votes-consumer',
      groupId: `apply-bench-${run}`,
      topics: [topics.gameVotes.name],
      fromBeginning: true,
      handleBatch: async (batch: BusMessage[]) => {
        // Measured from the first batch: the group join is not the apply rate.
        cpuAtFirstBatch ??= process.cpuUsage();
        firstBatchAt ??= performance.now();
        batches += 1;
        await applier.handleBatch(batch);
      },
      storedOffsets: {
        read: (_topic, p) => applier.storedOffset(p),
        recheckEveryMs: 1_000,
      },
    });
    const redisCpuBefore = await redisCpuSeconds(admin);
    const startedAt = performance.now();
    await consumer.start?.();
    stopConsumer = async () => consumer.stop?.();
    const joinedMs = performance.now() - startedAt;
    while ((await live.votesApplied(partition)) < endOffset) {
      if (performance.now() - startedAt > timeoutMs) {
        throw new Error(`not every vote applied in ${timeoutMs / 1000} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const doneAt = performance.now();
    const cpu = process.cpuUsage(cpuAtFirstBatch);
    const redisCpu = (await redisCpuSeconds(admin)) - redisCpuBefore;
    await consumer.stop?.();
    stopConsumer = undefined;

    // Every produced vote counted, once.
    const tally = await store.hGetAll(keys.tally(1));
    const counted = Object.values(tally).reduce((sum, votes) => sum + Number(votes), 0);
    const totalVotes = Number(await store.hGet(keys.state, 'totalVotes'));
    const ballots = await admin.hlen(`${keyPrefix}${keys.ballots(1)}`);
    const applyMs = doneAt - (firstBatchAt ?? startedAt);
    const engineCpuMs = (cpu.user + cpu.system) / 1000;
    const figures = {
      players,
      produced: Number(endOffset - startOffset),
      counted,
      totalVotes,
      ballots,
      batches,
      seedMs: Math.round(seedMs),
      produceMs: Math.round(produceMs),
      consumerJoinMs: Math.round(joinedMs),
      applyMs: Math.round(applyMs),
      votesPerSecond: Math.round((players / applyMs) * 1000),
      engineCpuMsPerVote: Number((engineCpuMs / players).toFixed(4)),
      redisCpuMsPerVote: Number(((redisCpu * 1000) / players).toFixed(4)),
    };
    console.log(JSON.stringify(figures, null, 2));
    if (counted !== players || totalVotes !== players || ballots !== players) {
      console.error(`FAILED: ${players} produced, ${counted} in the tally, ${totalVotes} total`);
      process.exitCode = 1;
    } else {
      console.log(`OK: all ${players} votes counted`);
    }
  } finally {
    await stopConsumer?.();
    await bus.close();
    await store.close();
    admin.disconnect();
    await started?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
