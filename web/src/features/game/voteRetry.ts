import {
  RETRYABLE_VOTE_CODES,
  VOTE_RETRY_DELAYS_MS,
  voteRetryDelayMs,
  voteRetryJitter,
} from '@underdog/rules';
import { errorCodeOf } from '../../app/errors';

// The policy itself (which codes, which delays, when to stop) is @underdog/rules' `vote-retry`,
// which the fault suite's players follow too; this is its Apollo side.
export { RETRYABLE_VOTE_CODES, VOTE_RETRY_DELAYS_MS };

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
 * anew). A network failure (no answer: Apollo's error carries no code) is not retried here; a
 * vote in flight when the socket closed is sent again by graphql-ws on the next socket. The last
 * answer, success or failure, is the caller's.
 */
export async function sendVoteRetrying<T>(
  send: () => Promise<T>,
  options: VoteRetryOptions,
): Promise<T> {
  const {
    stillCurrent,
    delaysMs = VOTE_RETRY_DELAYS_MS,
    wait = sleep,
    jitter = () => voteRetryJitter(Math.random),
  } = options;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await send();
    } catch (error) {
      const delay = voteRetryDelayMs(errorCodeOf(error), attempt, jitter(), delaysMs);
      if (delay === undefined || !stillCurrent()) throw error;
      await wait(delay);
      if (!stillCurrent()) throw error;
    }
  }
}
