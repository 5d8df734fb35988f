import { drawSeedCommitment } from './resolution';

/** The seed about to be revealed is not the one committed to at the game's start (issue 37). */
export class DrawSeedRefusedError extends Error {
  readonly code = 'DRAW_SEED_REFUSED';
}

/**
 * The check at the reveal (docs/fairness.md, "The seed"): the seed must hash to the commitment
 * stored with it as the game began, which has been public since (the live snapshot, GameStarted,
 * the records). There is no fallback: a game without a seed, or whose seed was replaced, is not
 * drawn — the step fails and is retried (logged as an error each time) until the seed is put
 * back, so a replaced seed is never used unseen. A game begun before the commitment was stored
 * in the live state (a rolling upgrade) has '' there: its seed is used, as `GameStarted`
 * committed to it.
 */
export function checkRevealedSeed(seed: string, commitment: string): string {
  if (seed === '') throw new DrawSeedRefusedError('the game has no draw seed: it cannot be drawn');
  if (commitment !== '' && drawSeedCommitment(seed) !== commitment.toLowerCase()) {
    throw new DrawSeedRefusedError(
      "the draw seed does not hash to the game's commitment: refused (it was replaced)",
    );
  }
  return seed;
}
