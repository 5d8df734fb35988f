import { isImageOfRound, roundImages } from '@underdog/rules';

describe('round images', () => {
  it('names image M of round N round-N-image-M with picture (M + N) mod 8', () => {
    expect(roundImages(1)).toEqual([
      { id: 'round-1-image-0', url: '/images/sample-1.svg', alt: 'Blue whale' },
      { id: 'round-1-image-1', url: '/images/sample-2.svg', alt: 'Green cactus' },
      { id: 'round-1-image-2', url: '/images/sample-3.svg', alt: 'Yellow sun' },
      { id: 'round-1-image-3', url: '/images/sample-4.svg', alt: 'Purple mountain' },
    ]);
    expect(roundImages(7).map((image) => image.url)).toEqual([
      '/images/sample-7.svg',
      '/images/sample-0.svg',
      '/images/sample-1.svg',
      '/images/sample-2.svg',
    ]);
    expect(roundImages(7)[1]!.alt).toBe('Red fox');
  });

  it('accepts only the four images of the given round', () => {
    expect(isImageOfRound('round-3-image-0', 3)).toBe(true);
    expect(isImageOfRound('round-3-image-3', 3)).toBe(true);
    expect(isImageOfRound('round-3-image-4', 3)).toBe(false);
    expect(isImageOfRound('round-2-image-0', 3)).toBe(false);
    expect(isImageOfRound('image-0', 3)).toBe(false);
  });
});
