import {
  FULL_RETRY_JITTER,
  SERVER_FULL_CLOSE_CODE,
  fullRetryDelayMs,
  reconnectDelayMs,
} from '../src/app/apollo';

/** Issue 25's reconnect storm: the ordinary reconnect is spec §9's 3 s, jittered by ±1 s. */
describe('the ordinary reconnect delay', () => {
  it('is 3 s ± 1 s', () => {
    expect(reconnectDelayMs(() => 0.5)).toBe(3_000);
    expect(reconnectDelayMs(() => 0)).toBe(2_000);
    expect(reconnectDelayMs(() => 0.999_999)).toBe(4_000);
  });
});

/** Issue 25: the app's wait after the gateway closes its socket as full (1013). */
describe('the waiting room retry delay', () => {
  const full = { code: SERVER_FULL_CLOSE_CODE, reason: 'Server full; retry in 20 s' };

  it("waits the gateway's N seconds, jittered by ±30%", () => {
    expect(fullRetryDelayMs(full, () => 0.5)).toBe(20_000);
    expect(fullRetryDelayMs(full, () => 0)).toBe(20_000 * (1 - FULL_RETRY_JITTER));
    expect(fullRetryDelayMs(full, () => 0.999_999)).toBeCloseTo(
      20_000 * (1 + FULL_RETRY_JITTER),
      -1,
    );
  });

  it('waits the default 10 s when the reason names no N', () => {
    expect(fullRetryDelayMs({ code: 1013, reason: '' }, () => 0.5)).toBe(10_000);
    expect(fullRetryDelayMs({ code: 1013 }, () => 0.5)).toBe(10_000);
  });

  it('leaves every other close to the ordinary reconnect', () => {
    for (const event of [{ code: 1006, reason: '' }, { code: 1001 }, new Error('x'), undefined]) {
      expect(fullRetryDelayMs(event)).toBeUndefined();
    }
  });
});
