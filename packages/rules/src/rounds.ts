/**
 * The game's shape (server rules, "Rounds and images"): how many rounds, how many images a
 * round offers, and the two ways an image is named. Pure and dependency-free, so the web app
 * imports it as the services do.
 */

/** Rounds in every tournament's game: the last round ends the game (by a draw if needed). */
export const TOTAL_ROUNDS = 17;
/** Images each round offers, at positions 0 .. IMAGES_PER_ROUND − 1. */
export const IMAGES_PER_ROUND = 4;

/** An image's id in the live game, its events and its records: `round-N-image-M`. */
export function roundImageId(roundNumber: number, position: number): string {
  return `round-${roundNumber}-image-${position}`;
}

/** The round and position an image id names, or undefined when it is not `round-N-image-M`. */
export function parseRoundImageId(
  imageId: string,
): { roundNumber: number; position: number } | undefined {
  const match = /^round-(\d+)-image-(\d+)$/.exec(imageId);
  if (!match) return undefined;
  return { roundNumber: Number(match[1]), position: Number(match[2]) };
}

/** Whether `imageId` is one of round N's images. */
export function isImageOfRound(imageId: string, roundNumber: number): boolean {
  const parsed = parseRoundImageId(imageId);
  return (
    parsed !== undefined &&
    parsed.roundNumber === roundNumber &&
    parsed.position >= 0 &&
    parsed.position < IMAGES_PER_ROUND
  );
}

/** Whether `roundNumber` is a round of the game: an integer from 1 to TOTAL_ROUNDS. */
export function isRoundNumber(roundNumber: number): boolean {
  return Number.isInteger(roundNumber) && roundNumber >= 1 && roundNumber <= TOTAL_ROUNDS;
}

/**
 * An offline pick's encoding (the `selectedImageId` of an offline choice, API and storage): the
 * image's zero-based position in its round as a string, "0" .. "3". Every valid value, in order.
 */
export const OFFLINE_POSITIONS: readonly string[] = Array.from(
  { length: IMAGES_PER_ROUND },
  (_, position) => String(position),
);

/** The offline encoding of the image at `position` ("0" .. "3"). */
export function offlinePosition(position: number): string {
  return String(position);
}

/**
 * The image an offline pick names in round N: `round-N-image-P` for the stored position P
 * (position 0 when the round has no pick, as the engine has always played it).
 */
export function offlinePickImageId(roundNumber: number, pick: string | undefined): string {
  return roundImageId(roundNumber, Number(pick ?? '0'));
}
