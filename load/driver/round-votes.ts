/**
 * The round bench's votes: N votes produced straight into `game.votes` at the voting window's pace
 * by several producers, each stamped when it leaves, while the engines' applied marks are sampled.
 */
import type { createKafkaBus } from '@underdog/bus';
import { topics } from '@underdog/platform';
import type { LiveGames } from '../../services/game-engine/src/adapters/live-games';
import { PRODUCE_CHUNK, benchVote, sleep } from './live-round-kit';
import { votesDueBy } from './round-report';

/** How many votes the engines applied since `partitions` (partition → its end before the votes). */
export function appliedSince(live: LiveGames, partitions: ReadonlyMap<number, bigint>) {
  return async () => {
    let applied = 0n;
    for (const [partition, start] of partitions) {
      const mark = await live.votesApplied(partition);
      if (mark > start) applied += mark - start;
    }
    return Number(applied);
  };
}

/**
 * Produces `players` votes over `spread` of the time left to `deadline`, chunks going to the
 * producers in turn, one in flight each; resolves once all are applied (or 600 s past the deadline).
 */
export async function produceVotes(run: {
  producers: ReturnType<typeof createKafkaBus>[];
  players: number;
  deadline: number;
  spread: number;
  slotVote: Omit<Parameters<typeof benchVote>[0], 'castAt'>;
  appliedSoFar: () => Promise<number>;
}) {
  const { producers, players, deadline, slotVote, appliedSoFar } = run;
  const spanMs = Math.max(0, (deadline - Date.now()) * run.spread);
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
  while (produced < players) {
    const due = votesDueBy(players, Date.now() - produceStart, spanMs);
    while (produced < due) {
      const sends: Array<Promise<unknown>> = [];
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
  return { spanMs, produceStart, samples, produced, maxBacklog, producedAt, allAppliedAt };
}
