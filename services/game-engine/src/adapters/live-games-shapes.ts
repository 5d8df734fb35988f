/**
 * What the engine's live-game adapter (`LiveGames`, live-games.ts) takes and answers: its
 * replies, the facts and votes it stores, a round's close, a participant, the applied mark and
 * the expectation of a fenced step; live-games.ts exports them again, where importers find them.
 */
import type { StoredBallot, StoredPhase, StoredPlayer, StoredResult } from '@underdog/live-game';

export type JoinReply = 'JOINED' | 'ALREADY' | 'NO_TOURNAMENT' | 'JOIN_CLOSED' | 'DEVICE_IN_USE';

export type ApplyReply =
  'COUNTED' | 'NO_GAME' | 'DUPLICATE' | 'CLOSED' | 'LATE' | 'NOT_ELIGIBLE' | 'ALREADY_VOTED';

/** A resolved round's times and results, kept in the game's state for its records. */
export interface RoundFacts {
  startedAt: number;
  endedAt: number;
  results: { imageId: string; votes: number; percentage: number; isWinner: boolean }[];
}

/** The state field holding round N's `RoundFacts`, written with the round's results. */
export const roundFactsField = (round: number) => `facts:r${round}`;

/**
 * The state field holding a round's close while its players go out (`RoundClose`): written with
 * the resolution, before the first elimination step; '' once the round's results are stored.
 */
export const roundCloseField = 'closing';

/**
 * A resolved round whose eliminations are under way, stored before the first of them (phase
 * `tallying`): no player list, only what decides who goes — a replica that takes the game over
 * mid-way sends out the alive players who did not vote for a winning image, or are excluded —
 * and what the results announce. `end` holds the state fields of the game's end, when decided.
 */
export interface RoundClose {
  round: number;
  endedAt: number;
  results: StoredResult[];
  totalVotes: number;
  winningImageIds: string[];
  eliminatedCount: number;
  remainingCount: number;
  /** `drawOrder`: the prize's order fixed at the reveal, JSON (issue 37). */
  end: { decidedBy: string; winner: string; draw: string; drawOrder: string } | undefined;
}

export interface TournamentFacts {
  id: string;
  title: string;
  prize: string | undefined;
  startAt: Date;
  roundTimeSeconds: number;
}

export interface VoteToApply {
  tournamentId: string;
  gameId: string;
  voteId: string;
  userId: string;
  username: string;
  roundNumber: number;
  imageId: string;
  castAt: number;
  offline: boolean;
}

/** The ballot a vote leaves in the round's ballots hash (`applyVote` and `applyVotes` alike). */
export function storedBallotOf(vote: VoteToApply): StoredBallot {
  return {
    imageId: vote.imageId,
    castAt: vote.castAt,
    voteId: vote.voteId,
    username: vote.username,
    offline: vote.offline,
  };
}

export interface Participant extends StoredPlayer {
  userId: string;
  /** The 17 offline choices, when an offline player. */
  offlineChoices: string | undefined;
  /** 0 while still in. */
  eliminatedInRound: number;
  /** The administrator's reason, once disqualified (issue 28). */
  disqualificationReason: string | undefined;
}

/**
 * Where a message of `game.votes` leaves the partition's applied mark: at `next` (its offset + 1),
 * raised only when the mark already reached `after` (what the message before it left; '' for the
 * first of a batch), so a mark never passes a message whose step failed.
 */
export interface AppliedMark {
  partition: number;
  next: string;
  after: string;
}

/** The expected phase and round of a fenced step, or any. */
export type Expectation = { phase: StoredPhase; round: number } | '*';
