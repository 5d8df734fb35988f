/**
 * The parts of a round that both the live game's snapshot (views.ts) and the game events
 * (game-events.ts) carry, in their own module so that neither has to import the other for them.
 */

export interface RoundImageView {
  id: string;
  url: string;
  alt: string;
}

export interface ImageResultView {
  imageId: string;
  votes: number;
  percentage: number;
  isWinner: boolean;
}

export interface WinnerView {
  userId: string;
  username: string;
  displayName: string;
  prize: string | null;
}
