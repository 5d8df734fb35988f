import { arrivalProfile, voteDelayMs } from '../driver/arrival';

/** A seeded generator, so the shares below are the same every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe("the bench's vote arrival", () => {
  const share = (delays: number[], below: number) =>
    delays.filter((delay) => delay < below).length / delays.length;

  it('spreads uniform votes evenly over the share of the window', () => {
    const random = seeded(7);
    const delays = Array.from({ length: 20_000 }, () =>
      voteDelayMs(15_000, 0.8, 'uniform', random),
    );
    expect(Math.max(...delays)).toBeLessThanOrEqual(12_000);
    // 5 s of 12 s: about 42 %.
    expect(share(delays, 5_000)).toBeGreaterThan(0.39);
    expect(share(delays, 5_000)).toBeLessThan(0.45);
  });

  it('puts 80 % of front-loaded votes in the first 5 s and the rest after, inside the share', () => {
    const random = seeded(11);
    const delays = Array.from({ length: 20_000 }, () =>
      voteDelayMs(15_000, 0.8, 'front-loaded', random),
    );
    expect(share(delays, 5_000)).toBeGreaterThan(0.78);
    expect(share(delays, 5_000)).toBeLessThan(0.82);
    expect(Math.max(...delays)).toBeLessThanOrEqual(12_000);
    expect(Math.max(...delays)).toBeGreaterThan(11_000);
  });

  it('keeps every front-loaded vote inside a window shorter than 5 s', () => {
    const random = seeded(3);
    const delays = Array.from({ length: 1_000 }, () =>
      voteDelayMs(4_000, 0.8, 'front-loaded', random),
    );
    expect(Math.max(...delays)).toBeLessThanOrEqual(3_200);
  });

  it('names the profiles it knows and refuses others clearly', () => {
    expect(arrivalProfile('front-loaded')).toBe('front-loaded');
    expect(() => arrivalProfile('bursty')).toThrow('--arrival: uniform or front-loaded');
  });
});
