import { drawOrder, firstEligible, prizeOrder } from '@underdog/fair-play';
import { randomBytes } from 'node:crypto';

// The seeded draw, its order and its commitment are @underdog/fair-play's, the code an auditor
// reruns (docs/fairness.md): the engine draws with exactly that.
export {
  drawOrder,
  drawSeedCommitment,
  drawWinner,
  firstEligible,
  prizeOrder,
} from '@underdog/fair-play';

/**
 * Resolving a round (server rules, "Resolving a round"). Pure: the same input always gives the
 * same output, so a replica that takes a game over mid-resolution reaches the same result.
 */
export interface RoundInput {
  roundNumber: number;
  totalRounds: number;
  /** The round's image ids, in position order. */
  imageIds: readonly string[];
  /** Participants still in when the round opened. */
  alive: readonly string[];
  /** userId → imageId, one per voter (the engine only applies ballots of alive players). */
  ballots: ReadonlyMap<string, string>;
  /** The seed of the draw if several survive the last round (stored with the game). */
  drawSeed: string;
  /**
   * Disqualified by an administrator, out at the end of this round whatever they voted (issue
   * 28). Their votes stay in the tally (docs/fairness.md).
   */
  excluded?: ReadonlySet<string>;
}

export interface ImageCount {
  imageId: string;
  votes: number;
  /** Whole percent of the round's votes, 0 when nobody voted. */
  percentage: number;
  isWinner: boolean;
}

/**
 * How the game ended. `order` is the prize's order fixed at the reveal (`prizeOrder`): its first
 * is the winner; a disqualification after the game gives the prize to the next eligible in it.
 */
export type GameEnd =
  | { decidedBy: 'last_standing'; winnerUserId: string; order: string[] }
  | { decidedBy: 'no_winner'; order: string[] }
  | {
      decidedBy: 'draw';
      winnerUserId: string;
      draw: { seed: string; candidateUserIds: string[]; winnerUserId: string };
      order: string[];
    };

export interface RoundOutcome {
  results: ImageCount[];
  totalVotes: number;
  winningImageIds: string[];
  /** Sorted. */
  advanced: string[];
  /** Sorted; non-voters included. */
  eliminated: string[];
  /** Set when the game ends with this round. */
  end: GameEnd | undefined;
}

/** A round's counts: what `RoundResults` shows, from the votes per image alone. */
export interface RoundCounts {
  results: ImageCount[];
  totalVotes: number;
  /** The least-voted images among those with a vote (server rules); none when nobody voted. */
  winningImageIds: string[];
}

/**
 * The round's results from its votes per image (server rules, "Resolving a round"): the images
 * with the fewest votes, among those with any, win. `resolveRound` counts the ballots of the alive
 * players and calls this; a close at scale calls it with the tallies the votes were applied to.
 */
export function roundCounts(
  imageIds: readonly string[],
  votesOf: ReadonlyMap<string, number>,
): RoundCounts {
  const counts = imageIds.map((imageId) => ({ imageId, votes: votesOf.get(imageId) ?? 0 }));
  const totalVotes = counts.reduce((sum, { votes }) => sum + votes, 0);
  const nonZero = counts.map(({ votes }) => votes).filter((votes) => votes > 0);
  const smallest = nonZero.length > 0 ? Math.min(...nonZero) : undefined;
  const winning = new Set(
    counts
      .filter(({ votes }) => smallest !== undefined && votes === smallest)
      .map((c) => c.imageId),
  );
  return {
    results: counts.map(({ imageId, votes }) => ({
      imageId,
      votes,
      percentage: totalVotes === 0 ? 0 : Math.round((votes * 100) / totalVotes),
      isWinner: winning.has(imageId),
    })),
    totalVotes,
    winningImageIds: imageIds.filter((id) => winning.has(id)),
  };
}

export function resolveRound(input: RoundInput): RoundOutcome {
  const counts = new Map<string, number>(input.imageIds.map((id) => [id, 0]));
  const voterOf = new Map<string, string>();
  for (const user of input.alive) {
    const image = input.ballots.get(user);
    if (image !== undefined && counts.has(image)) {
      counts.set(image, counts.get(image)! + 1);
      voterOf.set(user, image);
    }
  }
  const { results, totalVotes, winningImageIds } = roundCounts(input.imageIds, counts);
  const winning = new Set(winningImageIds);
  const advanced: string[] = [];
  const eliminated: string[] = [];
  /** Who voted a winning image, the excluded too: a last round's draw orders them all. */
  const onWinning: string[] = [];
  for (const user of input.alive) {
    const image = voterOf.get(user);
    const voted = image !== undefined && winning.has(image);
    if (voted) onWinning.push(user);
    const advances = voted && !input.excluded?.has(user);
    (advances ? advanced : eliminated).push(user);
  }
  advanced.sort();
  onWinning.sort();
  eliminated.sort();
  return {
    results,
    totalVotes,
    winningImageIds,
    advanced,
    eliminated,
    end: gameEnd(advanced, eliminated, onWinning, input),
  };
}

/**
 * Who of `alive` goes out of a round resolved with `winningImageIds`, sorted: whoever did not vote
 * for a winning image, and the excluded — `resolveRound`'s rule, so from the alive set of the
 * round's start it gives `resolveRound`'s `eliminated`, and from the alive set part-way through
 * the eliminations, the ones still to go (a replica that takes a close over finishes it so).
 */
export function roundLeavers(input: {
  alive: Iterable<string>;
  ballots: ReadonlyMap<string, string>;
  winningImageIds: readonly string[];
  excluded?: ReadonlySet<string>;
}): string[] {
  const winning = new Set(input.winningImageIds);
  const leavers: string[] = [];
  for (const user of input.alive) {
    const image = input.ballots.get(user);
    const advances = image !== undefined && winning.has(image) && !input.excluded?.has(user);
    if (!advances) leavers.push(user);
  }
  return leavers.sort();
}

function gameEnd(
  advanced: string[],
  eliminated: string[],
  onWinning: string[],
  input: RoundInput,
): GameEnd | undefined {
  if (advanced.length === 0) return { decidedBy: 'no_winner', order: [] };
  if (advanced.length === 1) {
    const winnerUserId = advanced[0]!;
    return {
      decidedBy: 'last_standing',
      winnerUserId,
      order: prizeOrder(input.drawSeed, {
        decidedBy: 'last_standing',
        winnerUserId,
        lastRoundEliminatedUserIds: eliminated,
      }),
    };
  }
  if (input.roundNumber < input.totalRounds) return undefined;
  // The draw orders everyone who voted a winning image, those disqualified in this round too, and
  // the first not disqualified wins (issue 37): a disqualification in the last round can only pass
  // the prize down the seed's order, as one after the game does — never make the draw anew over
  // a subset someone who knows the seed chose.
  const order = prizeOrder(input.drawSeed, { decidedBy: 'draw', candidateUserIds: onWinning });
  const excluded = input.excluded ?? new Set<string>();
  // Someone eligible is in the order unless a thousand were disqualified in this very round;
  // then the whole order decides (and the published one, cut at its limit, does not name them).
  const winnerUserId =
    firstEligible(order, excluded) ??
    firstEligible(drawOrder(input.drawSeed, onWinning), excluded)!;
  return {
    decidedBy: 'draw',
    winnerUserId,
    draw: { seed: input.drawSeed, candidateUserIds: onWinning, winnerUserId },
    order,
  };
}

/** A new game's draw seed: 32 random bytes, lower-case hex. */
export function newDrawSeed(): string {
  return randomBytes(32).toString('hex');
}
