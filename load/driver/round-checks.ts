/**
 * The round bench's checks and Redis figures: every produced vote against the round's tally, the
 * engine's ballots, the state's total and the vote records; Redis's slowest commands, latency,
 * CPU and memory over the round.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type mongoose from 'mongoose';
import type { RoundResults } from '@underdog/proto';
import * as liveGameScripts from '../../packages/live-game/src';
import * as storeScripts from '../../packages/store/src';
import type { LiveGames } from '../../services/game-engine/src/adapters/live-games';
import {
  benchImageOf,
  benchUserId,
  benchVoteId,
  redisCpuSeconds,
  redisUsedMemory,
  sleep,
} from './live-round-kit';
import { checkVotes, countByImage, slowestCommands, tallyDifferences } from './round-report';

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

/** Redis over the round: its slowest commands (seconds after the deadline), latency, CPU, memory. */
export async function redisOverRound(admin: Redis, deadline: number, redisCpuBefore: number) {
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
  return { slowest, latency, redisCpu, memoryAfter };
}

/** Every produced vote of round `round` against the round's tally, the ballots and the state. */
export async function checkRound(
  live: LiveGames,
  tournamentId: string,
  round: number,
  players: number,
  roundResults: RoundResults,
) {
  const expected = new Map(
    Array.from({ length: players }, (_, n) => [benchUserId(n), benchImageOf(round, n)] as const),
  );
  const expectedTally = countByImage(expected.values());
  const resultsTally = new Map(roundResults.results.map((r) => [r.imageId, r.votes] as const));
  const tallyOff = tallyDifferences(expectedTally, resultsTally);
  const ballots = await live.ballots(tournamentId, round);
  const ballotCheck = checkVotes(
    expected,
    [...ballots].map(([userId, ballot]) => [userId, ballot.imageId] as const),
  );
  const wrongVoteIds = [...ballots].filter(
    ([userId, ballot]) => ballot.voteId !== benchVoteId(tournamentId, Number(userId.slice(1))),
  ).length;
  const state = await live.state(tournamentId);
  return { expected, tallyOff, ballots, ballotCheck, wrongVoteIds, state };
}

/** The records: round `round`'s player_votes, once the engine has written them (or the timeout). */
export async function checkRecords(
  documents: mongoose.Connection,
  query: { gameId: string; roundNumber: number },
  expected: ReadonlyMap<string, string>,
  players: number,
  timeoutMs: number,
  resultsReceivedAt: number,
) {
  const votes = documents.db!.collection('player_votes');
  const until = Date.now() + timeoutMs;
  let stored = 0;
  while ((stored = await votes.countDocuments(query)) < players && Date.now() < until) {
    await sleep(2_000);
  }
  const recordsMs = Date.now() - resultsReceivedAt;
  const found: Array<readonly [string, string]> = [];
  for await (const doc of votes.find(query, { projection: { userId: 1, imageId: 1 } })) {
    found.push([String(doc.userId), String(doc.imageId)]);
  }
  const recordCheck = checkVotes(expected, found);
  console.log(
    `${stored} vote records of round 1 (${(recordsMs / 1000).toFixed(1)} s after the results)`,
  );
  return { recordCheck, recordsMs };
}
