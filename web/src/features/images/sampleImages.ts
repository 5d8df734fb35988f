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
