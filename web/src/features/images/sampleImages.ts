import { i18n } from '../../app/i18n';

// The sample pictures and which one a round shows where are the game's rules (@underdog/rules).
export { SAMPLE_IMAGES, sampleImageOf } from '@underdog/rules';

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
