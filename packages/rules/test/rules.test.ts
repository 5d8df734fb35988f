import {
  IMAGES_PER_ROUND,
  OFFLINE_POSITIONS,
  TOTAL_ROUNDS,
  countsShownIn,
  isImageOfRound,
  isRoundNumber,
  offlinePickImageId,
  parseRoundImageId,
  roundImageId,
} from '../src';

describe('the rules', () => {
  it('names an image round-N-image-M and reads it back', () => {
    expect(roundImageId(3, 2)).toBe('round-3-image-2');
    expect(parseRoundImageId('round-3-image-2')).toEqual({ roundNumber: 3, position: 2 });
    expect(parseRoundImageId('round-3-image-')).toBeUndefined();
    expect(isImageOfRound(roundImageId(3, IMAGES_PER_ROUND - 1), 3)).toBe(true);
    expect(isImageOfRound(roundImageId(3, IMAGES_PER_ROUND), 3)).toBe(false);
    expect(isImageOfRound(roundImageId(3, 0), 4)).toBe(false);
  });

  it('has rounds 1 to TOTAL_ROUNDS', () => {
    expect(isRoundNumber(1)).toBe(true);
    expect(isRoundNumber(TOTAL_ROUNDS)).toBe(true);
    expect(isRoundNumber(0)).toBe(false);
    expect(isRoundNumber(TOTAL_ROUNDS + 1)).toBe(false);
    expect(isRoundNumber(1.5)).toBe(false);
  });

  it('encodes an offline pick as its position and maps it to the round image', () => {
    expect(OFFLINE_POSITIONS).toHaveLength(IMAGES_PER_ROUND);
    expect(OFFLINE_POSITIONS[0]).toBe('0');
    for (const pick of OFFLINE_POSITIONS) {
      expect(isImageOfRound(offlinePickImageId(5, pick), 5)).toBe(true);
    }
    expect(offlinePickImageId(5, '2')).toBe('round-5-image-2');
    expect(offlinePickImageId(5, undefined)).toBe('round-5-image-0');
  });

  it('shows per-image counts only once a round is resolved', () => {
    expect(countsShownIn('voting')).toBe(false);
    expect(countsShownIn('voting_ended')).toBe(false);
    expect(countsShownIn('tallying')).toBe(false);
    expect(countsShownIn('waiting')).toBe(false);
    expect(countsShownIn('results')).toBe(true);
    expect(countsShownIn('advertisement')).toBe(true);
    expect(countsShownIn('finished')).toBe(true);
  });
});
