import {
  DEFAULT_FULL_RETRY_SECONDS,
  FULL_RETRY_JITTER,
  SERVER_FULL_CLOSE_CODE,
  fullRetryDelayMs,
  fullRetrySeconds,
  reconnectDelayMs,
  serverFullReason,
} from '../src/reconnect';

describe("the shipped client's socket policy", () => {
  it('reads back the N seconds the gateway writes in its 1013 reason', () => {
    expect(serverFullReason(20)).toBe('Server full; retry in 20 s');
    expect(fullRetrySeconds(serverFullReason(20))).toBe(20);
    expect(fullRetrySeconds('Server full')).toBe(DEFAULT_FULL_RETRY_SECONDS);
  });

  it('waits N s ± 30% after a 1013, and leaves any other close to the ordinary reconnect', () => {
    const full = { code: SERVER_FULL_CLOSE_CODE, reason: serverFullReason(20) };
    expect(fullRetryDelayMs(full, () => 0)).toBe(20_000 * (1 - FULL_RETRY_JITTER));
    expect(fullRetryDelayMs({ code: 1006, reason: '' }, () => 0)).toBeUndefined();
  });

  it('reconnects after 3 s ± 1 s', () => {
    expect(reconnectDelayMs(() => 0)).toBe(2_000);
    expect(reconnectDelayMs(() => 0.5)).toBe(3_000);
    expect(reconnectDelayMs(() => 0.999_999)).toBe(4_000);
  });
});
