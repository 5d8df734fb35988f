/** How many images a round offers, and the sample pictures shipped with the web app. */
export const IMAGES_PER_ROUND = 4;
export const TOTAL_ROUNDS = 17;
/**
 * After a round's deadline, how long votes in flight may still arrive (server rules: ≤ 1 s). The
 * engine captures the end of the round's `game.votes` partition when it ends; the gateway
 * acknowledges a vote only if its produce completed before then (minus its safety margin).
 */
export const VOTING_GRACE_MS = 1000;

/** The eight sample pictures' alt texts, by picture number K (`/images/sample-K.svg`). */
export const sampleAltTexts = [
  'Red fox',
  'Blue whale',
  'Green cactus',
  'Yellow sun',
  'Purple mountain',
  'Orange hot-air balloon',
  'Teal sailboat',
  'Pink flamingo',
] as const;

export interface RoundImageInfo {
  /** `round-N-image-M` */
  id: string;
  /** `/images/sample-K.svg`, K = (M + N) mod 8 */
  url: string;
  alt: string;
}

export function roundImageId(roundNumber: number, position: number): string {
  return `round-${roundNumber}-image-${position}`;
}

/** Round N's four images: image M shows sample picture (M + N) mod 8 (server rules). */
export function roundImages(roundNumber: number): RoundImageInfo[] {
  return Array.from({ length: IMAGES_PER_ROUND }, (_, position) => {
    const picture = (position + roundNumber) % sampleAltTexts.length;
    return {
      id: roundImageId(roundNumber, position),
      url: `/images/sample-${picture}.svg`,
      alt: sampleAltTexts[picture]!,
    };
  });
}

/** Whether `imageId` is one of round N's images. */
export function isImageOfRound(imageId: string, roundNumber: number): boolean {
  const match = /^round-(\d+)-image-(\d+)$/.exec(imageId);
  if (!match) return false;
  const position = Number(match[2]);
  return Number(match[1]) === roundNumber && position >= 0 && position < IMAGES_PER_ROUND;
}
