import { IMAGES_PER_ROUND, roundImageId } from '@underdog/rules';

// The game's rules live in @underdog/rules; re-exported for the engine's and the gateway's
// existing imports.
export {
  IMAGES_PER_ROUND,
  TOTAL_ROUNDS,
  VOTING_GRACE_MS,
  isImageOfRound,
  roundImageId,
} from '@underdog/rules';

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
