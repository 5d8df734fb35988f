import type { FinishedGame } from '../persistence';
import { drawWinner } from './resolution';

export const REASON_MAX_LENGTH = 500;

export interface RedecidedOutcome {
  /** True when the winner changes. */
  changed: boolean;
  winnerUserId: string | undefined;
  draw: { seed: string; candidateUserIds: string[]; winnerUserId: string } | undefined;
}

/**
 * The outcome of a finished game once some of its participants are disqualified
 * (docs/fairness.md, "Disqualification"). Pure and idempotent: applied again to the records it
 * produced, it changes nothing.
 *
 * - The winner is not disqualified: nothing changes.
 * - The winner was decided by the draw: the draw is made again, with the same revealed seed,
 *   over its candidates who are not disqualified.
 * - The winner was the last standing: the candidates are the participants eliminated in the last
 *   round played who are not disqualified, drawn with the game's seed.
 * - No candidate left: no winner.
 */
export function redecideOutcome(game: FinishedGame): RedecidedOutcome {
  const disqualified = new Set(
    game.participants
      .filter((participant) => participant.disqualificationReason !== undefined)
      .map((participant) => participant.userId),
  );
  const winner = game.winnerUserId || undefined;
  if (winner === undefined || !disqualified.has(winner)) {
    return { changed: false, winnerUserId: winner, draw: game.draw };
  }
  const seed = game.draw?.seed ?? game.drawSeed;
  const candidates = (
    game.draw
      ? game.draw.candidateUserIds
      : game.participants
          .filter((participant) => participant.eliminatedInRound === game.roundsPlayed)
          .map((participant) => participant.userId)
  )
    .filter((userId) => !disqualified.has(userId))
    .sort();
  if (candidates.length === 0) return { changed: true, winnerUserId: undefined, draw: undefined };
  const winnerUserId = drawWinner(seed, candidates);
  return {
    changed: true,
    winnerUserId,
    draw: { seed, candidateUserIds: candidates, winnerUserId },
  };
}
