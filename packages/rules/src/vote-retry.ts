/**
 * The shipped client's vote retry policy, defined once: the web app sends a vote through it
 * (`web/src/features/game/voteRetry.ts`, the Apollo side), and the fault suite's players follow
 * it (`tools/test/fault-players.ts`), so what the suite proves is what a player's browser does.
 *
 * - A vote answered with a retryable code was not recorded yet (a broker or Redis failover in
 *   flight): it is sent again after `VOTE_RETRY_DELAYS_MS[n]` (± 25 %), at most that many times,
 *   while its round is still the one shown and the socket is connected. A vote sent again is the
 *   same vote (game, round, player): it is answered with the first one's fate (docs/adr/0009, 3),
 *   so retrying never counts a vote twice.
 * - Any other refusal is final, and so is a success.
 * - A vote whose answer never came because the socket closed (its gateway died) is not retried by
 *   this policy: the transport sends it again once a socket is open again (graphql-ws sends every
 *   operation still in flight on the new socket), and that resend's answer goes through this
 *   policy like any other.
 */

/** The answers to a vote that mean "not recorded yet, send it again" (docs/api-ws.md). */
export const RETRYABLE_VOTE_CODES: ReadonlySet<string> = new Set([
  'VOTE_NOT_RECORDED',
  'UNAVAILABLE',
]);

/** How long to wait before each retry: about 10 s in all, the span of a failover. */
export const VOTE_RETRY_DELAYS_MS: readonly number[] = [250, 500, 1000, 1500, 2000, 2000, 2500];

/** A retry's delay is multiplied by a factor in [0.75, 1.25), so many players do not retry together. */
export function voteRetryJitter(random: () => number): number {
  return 0.75 + random() * 0.5;
}

/**
 * After the `failedAttempts`-th failed send of a vote (1 after the first send), how long to wait
 * before sending it again, or undefined when the answer is final: `code` is the refusal's code,
 * undefined when no answer came (a network failure, which this policy does not retry). The
 * caller still checks, before and after the wait, that the round is the same and the socket up.
 */
export function voteRetryDelayMs(
  code: string | undefined,
  failedAttempts: number,
  jitter: number,
  delaysMs: readonly number[] = VOTE_RETRY_DELAYS_MS,
): number | undefined {
  if (code === undefined || !RETRYABLE_VOTE_CODES.has(code)) return undefined;
  const delay = delaysMs[failedAttempts - 1];
  return delay === undefined ? undefined : Math.round(delay * jitter);
}
