import { i18n } from '../../app/i18n';

/** The eight sample round images shipped in web/public/images (the engine uses these URLs). */
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

/** Spec §9: sample images cycle by option index plus round number. */
export function sampleImageOf(roundNumber: number, option: number) {
  return SAMPLE_IMAGES[(option + roundNumber) % SAMPLE_IMAGES.length]!;
}

/**
 * An image's alt text in the user's language: the sample images have theirs in the catalogs
 * (imageAlts.sampleN); any other image keeps the alt it came with.
 */
export function altOf(image: { url: string; alt: string }): string {
  const sample = /\/images\/sample-(\d+)\.svg$/.exec(image.url)?.[1];
  return sample !== undefined && i18n.exists(`imageAlts.sample${sample}`)
    ? i18n.t(`imageAlts.sample${sample}`)
    : image.alt;
}
