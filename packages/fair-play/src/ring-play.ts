// How a linked group's accounts play (rings.ts, `scoreGroup`): votes cast together, and votes
// spread over the images round after round.
import type { Evidence, RingDetectionOptions, RoundVote, RoundVotes } from './ring-model';
import { duration, numeric } from './ring-text';
import { coveringP, surprise, tightestSubset, type TightSubset } from './statistics';

export interface PreparedRound {
  roundNumber: number;
  imageIds: readonly string[];
  votes: Map<string, RoundVote>;
  /** Everyone's cast times, sorted. */
  castTimes: number[];
  counts: Map<string, number>;
}

export function prepareRound(round: RoundVotes): PreparedRound {
  const votes = new Map<string, RoundVote>();
  for (const vote of round.votes) if (!votes.has(vote.userId)) votes.set(vote.userId, vote);
  const counts = new Map<string, number>(round.imageIds.map((id) => [id, 0]));
  for (const vote of votes.values()) counts.set(vote.imageId, (counts.get(vote.imageId) ?? 0) + 1);
  return {
    roundNumber: round.roundNumber,
    imageIds: [...counts.keys()],
    votes,
    castTimes: [...votes.values()].map((vote) => vote.castAt).sort(numeric),
    counts,
  };
}

/**
 * The play evidence of `players` (sorted user ids) over the rounds where two or more of them
 * voted: simultaneous and covering votes, the p-values to combine, and the rounds they covered.
 */
export function playEvidence(
  players: readonly string[],
  rounds: readonly PreparedRound[],
  options: RingDetectionOptions,
): { play: Evidence[]; playPValues: number[]; roundsPlayed: number; roundsCovered: number } {
  const play: Evidence[] = [];
  const playPValues: number[] = [];
  let roundsPlayed = 0;
  let roundsCovered = 0;
  for (const round of rounds) {
    const votes = players
      .map((member) => round.votes.get(member))
      .filter((vote): vote is RoundVote => vote !== undefined);
    if (votes.length < 2) continue;
    roundsPlayed++;
    const sync = simultaneous(votes, round, options);
    if (sync !== undefined) {
      playPValues.push(sync.p);
      if (surprise(sync.p) >= 1) {
        play.push({
          kind: 'simultaneousVotes',
          text: `${sync.indexes.length} votes cast within ${duration(sync.span)} in round ${round.roundNumber}`,
          members: sync.indexes.map((index) => votes[index]!.userId).sort(),
          surprise: surprise(sync.p),
          roundNumber: round.roundNumber,
        });
      }
    }
    const groupCounts = round.imageIds.map(
      (id) => votes.filter((vote) => vote.imageId === id).length,
    );
    const othersCounts = round.imageIds.map((id, i) => round.counts.get(id)! - groupCounts[i]!);
    const distinct = groupCounts.filter((count) => count > 0).length;
    if (distinct >= Math.min(votes.length, round.imageIds.length, 3)) roundsCovered++;
    const p = coveringP(groupCounts, othersCounts);
    playPValues.push(p);
    if (surprise(p) >= 1) {
      play.push({
        kind: 'coveringVotes',
        text: `${votes.length} votes split over ${distinct} of ${round.imageIds.length} images (${groupCounts.join('/')}) in round ${round.roundNumber}`,
        members: votes.map((vote) => vote.userId).sort(),
        surprise: surprise(p),
        roundNumber: round.roundNumber,
      });
    }
  }
  return { play, playPValues, roundsPlayed, roundsCovered };
}

function simultaneous(
  votes: readonly RoundVote[],
  round: PreparedRound,
  options: RingDetectionOptions,
): TightSubset | undefined {
  const times = votes.map((vote) => vote.castAt);
  return tightestSubset(times, round.castTimes, {
    densityWindow: options.voteDensityWindowMs,
    minSpan: options.minVoteSpanMs,
    maxSize: options.maxSubsetSize,
  });
}
