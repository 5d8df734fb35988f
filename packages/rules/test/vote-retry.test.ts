import {
  RETRYABLE_VOTE_CODES,
  VOTE_RETRY_DELAYS_MS,
  voteRetryDelayMs,
  voteRetryJitter,
} from '../src';

describe('the shipped client vote retry policy', () => {
  it('retries a vote answered VOTE_NOT_RECORDED or UNAVAILABLE after each delay in turn', () => {
    for (const code of RETRYABLE_VOTE_CODES) {
      const delays = VOTE_RETRY_DELAYS_MS.map((_, index) => voteRetryDelayMs(code, index + 1, 1));
      expect(delays).toEqual(VOTE_RETRY_DELAYS_MS);
    }
  });

  it('gives up after its last delay: the first send and seven retries', () => {
    expect(
      voteRetryDelayMs('VOTE_NOT_RECORDED', VOTE_RETRY_DELAYS_MS.length + 1, 1),
    ).toBeUndefined();
    expect(VOTE_RETRY_DELAYS_MS).toHaveLength(7);
  });

  it('never retries a final refusal nor a network failure (no answer came)', () => {
    for (const code of ['ALREADY_VOTED', 'VOTING_CLOSED', 'WRONG_ROUND', 'ELIMINATED', 'INTERNAL'])
      expect(voteRetryDelayMs(code, 1, 1)).toBeUndefined();
    expect(voteRetryDelayMs(undefined, 1, 1)).toBeUndefined();
  });

  it('spreads a retry over ±25 % of its delay', () => {
    expect(voteRetryJitter(() => 0)).toBe(0.75);
    expect(voteRetryJitter(() => 0.999_999)).toBeCloseTo(1.25);
    expect(
      voteRetryDelayMs(
        'UNAVAILABLE',
        2,
        voteRetryJitter(() => 0),
      ),
    ).toBe(375);
  });
});
