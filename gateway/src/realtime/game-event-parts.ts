/**
 * The small parts the game events' mappings share (game-events.ts) with the live game's snapshot
 * (views.ts) and the `/ws` messages (messages.ts): times, images, results, the round as the
 * spec's client holds it and the winner's text.
 */
import { timestampDate, type ImageResult, type RoundImage, type Timestamp } from '@underdog/proto';
import type { ImageResultView, RoundImageView, WinnerView } from './round-views';

export const iso = (timestamp: Timestamp | undefined): string | null =>
  timestamp ? timestampDate(timestamp).toISOString() : null;

/** Whole seconds from `now` to `deadline`, rounded up, never negative. */
export function secondsUntil(deadline: string | null, now: Date): number {
  if (!deadline) return 0;
  return Math.max(0, Math.ceil((Date.parse(deadline) - now.getTime()) / 1000));
}

export const imageView = ({ id, url, alt }: RoundImage): RoundImageView => ({ id, url, alt });
export const resultView = ({
  imageId,
  votes,
  percentage,
  isWinner,
}: ImageResult): ImageResultView => ({ imageId, votes, percentage, isWinner });

/** The round as the spec's client holds it: number, time limit, images. */
export interface RoundMessagePart {
  number: number;
  timeLimit: number;
  images: RoundImageView[];
}

export const roundPart = (
  number: number,
  timeLimit: number,
  images: RoundImageView[],
): RoundMessagePart => ({
  number,
  timeLimit,
  images,
});

/** The text of `game_ended.winnerMessage`. */
export function winnerMessage(view: { winner: WinnerView | null }): string {
  if (!view.winner) return 'Check results page for final standings';
  const name = view.winner.displayName || view.winner.username;
  return view.winner.prize ? `${name} wins ${view.winner.prize}!` : `${name} wins!`;
}
