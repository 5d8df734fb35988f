import type { FinishedGame } from '../persistence';
import { firstEligible, prizeOrder } from './resolution';

export const REASON_MAX_LENGTH = 500;

export interface RedecidedOutcome {
  /** True when the winner changes. */
  changed: boolean;
  winnerUserId: string | undefined;
  /** The order the prize follows, as fixed at the reveal (unchanged by a disqualification). */
  order: string[];
}

/**
 * The prize's order of a finished game (docs/fairness.md): the one stored at the reveal; for a
 * game recorded before the order was (issue 37), the same rule recomputed from what was recorded
 * at the reveal — the revealed seed, the draw's candidates or the last round's eliminated — so a
 * later disqualification cannot change it either. Without a seed (a game from before seeds
 * existed) only the winner: no one can be drawn after them.
 */
export function recordedPrizeOrder(game: FinishedGame): string[] {
  if (game.drawOrder !== undefined) return game.drawOrder;
  const winner = game.winnerUserId || undefined;
  if (game.drawSeed === undefined) return winner ? [winner] : [];
  if (game.draw) {
    return prizeOrder(game.drawSeed, {
      decidedBy: 'draw',
      candidateUserIds: game.draw.candidateUserIds,
    });
  }
  if (!winner) return [];
  return prizeOrder(game.drawSeed, {
    decidedBy: 'last_standing',
    winnerUserId: winner,
    lastRoundEliminatedUserIds: game.participants
      .filter((participant) => participant.eliminatedInRound === game.roundsPlayed)
      .map((participant) => participant.userId),
  });
}

/**
 * The outcome of a finished game once some of its participants are disqualified
 * (docs/fairness.md, "Disqualification"; issue 37). Pure and idempotent: the winner is the first
 * participant of the order fixed at the reveal who is not disqualified — never a new draw, so no
 * choice of whom to disqualify can pick a winner the order did not already put next.
 */
export function redecideOutcome(game: FinishedGame): RedecidedOutcome {
  const disqualified = new Set(
    game.participants
      .filter((participant) => participant.disqualificationReason !== undefined)
      .map((participant) => participant.userId),
  );
  const order = recordedPrizeOrder(game);
  const winner = game.winnerUserId || undefined;
  // No winner (a game ended without one, or everyone in the order disqualified) stays so; a
  // winner not disqualified stays (the first eligible already).
  if (winner === undefined || !disqualified.has(winner)) {
    return { changed: false, winnerUserId: winner, order };
  }
  return { changed: true, winnerUserId: firstEligible(order, disqualified), order };
}
