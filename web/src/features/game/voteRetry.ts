import { errorCodeOf } from '../../app/errors';

/**
 * The answers to a vote that mean "not recorded yet, send it again": the gateway could not put
 * it in Kafka or settle it in time (a broker or Redis failover in flight), or a service was
 * unreachable. A vote sent again is the same vote (game, round, player): it is answered with the
 * first one's fate (ADR 9), so retrying never counts a vote twice.
 */
export const RETRYABLE_VOTE_CODES: ReadonlySet<string> = new Set([
  'VOTE_NOT_RECORDED',
  'UNAVAILABLE',
]);

/** How long to wait before each retry: about 10 s in all, the span of a failover. */
export const VOTE_RETRY_DELAYS_MS: readonly number[] = [250, 500, 1000, 1500, 2000, 2000, 2500];

export interface VoteRetryOptions {
  /** Whether retrying still makes sense: the same round is open and the socket is connected. */
  stillCurrent: () => boolean;
  delaysMs?: readonly number[];
  /** Waits; a test passes its own. */
  wait?: (ms: number) => Promise<void>;
  /** Spreads retries of many players over time: a factor in [0.75, 1.25) by default. */
  jitter?: () => number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Sends a vote, and sends it again while the answer is retryable and the round is still open, so
 * that what the player is finally told agrees with the count: a vote left unsettled by a failover
 * is either counted (the resend is acknowledged) or not (the resend is refused, or recorded
 * anew). The last answer, success or failure, is the caller's.
 */
export async function sendVoteRetrying<T>(
  send: () => Promise<T>,
  options: VoteRetryOptions,
): Promise<T> {
  const {
    stillCurrent,
    delaysMs = VOTE_RETRY_DELAYS_MS,
    wait = sleep,
    jitter = () => 0.75 + Math.random() * 0.5,
  } = options;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await send();
    } catch (error) {
      const code = errorCodeOf(error);
      const delay = delaysMs[attempt];
      if (!code || !RETRYABLE_VOTE_CODES.has(code) || delay === undefined || !stillCurrent())
        throw error;
      await wait(Math.round(delay * jitter()));
      if (!stillCurrent()) throw error;
    }
  }
}
