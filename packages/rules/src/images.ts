import { IMAGES_PER_ROUND, roundImageId } from './rounds';

/**
 * The eight sample pictures shipped in web/public/images, by picture number K
 * (`/images/sample-K.svg`), with their English alt texts (the web app translates them).
 */
export const SAMPLE_IMAGES = [
  { url: '/images/sample-0.svg', alt: 'Red fox' },
  { url: '/images/sample-1.svg', alt: 'Blue whale' },
  { url: '/images/sample-2.svg', alt: 'Green cactus' },
  { url: '/images/sample-3.svg', alt: 'Yellow sun' },
  { url: '/images/sample-4.svg', alt: 'Purple mountain' },
  { url: '/images/sample-5.svg', alt: 'Orange hot-air balloon' },
  { url: '/images/sample-6.svg', alt: 'Teal sailboat' },
  { url: '/images/sample-7.svg', alt: 'Pink flamingo' },
] as const;

/** The picture round N shows at position M: sample (M + N) mod 8 (server rules, spec §9). */
export function sampleImageOf(roundNumber: number, position: number) {
  return SAMPLE_IMAGES[(position + roundNumber) % SAMPLE_IMAGES.length]!;
}

export interface RoundImageInfo {
  /** `round-N-image-M` */
  id: string;
  /** `/images/sample-K.svg`, K = (M + N) mod 8 */
  url: string;
  alt: string;
}

/** Round N's images, in position order. */
export function roundImages(roundNumber: number): RoundImageInfo[] {
  return Array.from({ length: IMAGES_PER_ROUND }, (_, position) => ({
    id: roundImageId(roundNumber, position),
    ...sampleImageOf(roundNumber, position),
  }));
}
