// When the bench's players vote: uniformly over the window's first share, or front-loaded as the
// capacity model assumes a live audience votes (issue 36 point 6).

/** How a round's votes arrive over its voting window. */
export type Arrival = 'uniform' | 'front-loaded';

export function arrivalProfile(value: string | undefined): Arrival {
  if (value !== 'uniform' && value !== 'front-loaded') {
    throw new Error('--arrival: uniform or front-loaded');
  }
  return value;
}

/** The front-loaded profile: this share of the votes in the window's first `FRONT_MS`. */
export const FRONT_SHARE = 0.8;
export const FRONT_MS = 5_000;

/**
 * A player's delay before voting, in ms, for a window of `windowMs` of which the votes use the
 * first `spread` (0–1). `uniform`: anywhere in it. `front-loaded`: 80 % of the players in its
 * first 5 s (or all of it, when shorter), the rest over what remains (docs/capacity.md's model).
 */
export function voteDelayMs(
  windowMs: number,
  spread: number,
  arrival: Arrival,
  random: () => number = Math.random,
): number {
  const span = Math.max(0, windowMs * spread);
  if (arrival === 'uniform') return random() * span;
  const front = Math.min(FRONT_MS, span);
  if (random() < FRONT_SHARE || span <= front) return random() * front;
  return front + random() * (span - front);
}
