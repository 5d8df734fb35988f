/** How long each step of a vote may take, and what makes a withdrawal final. */
export interface VoteTimings {
  /**
   * How long a vote's produce may take before the vote is answered VOTE_NOT_RECORDED (retryable;
   * default `DEFAULT_VOTE_PRODUCE_TIMEOUT_MS`): a broker or leader failover is not waited out.
   */
  produceTimeoutMs?: number;
  /**
   * How long a resend (a vote from a player whose vote of the round is admitted but not settled:
   * its gateway died) waits for that vote's fate before withdrawing it (default
   * `DEFAULT_RESEND_WAIT_MS`). While voting is open it waits only until the original is older
   * than `produceTimeoutMs` + 1 s, the longest its own gateway takes to settle it.
   */
  resendWaitMs?: number;
  /** How often a waiting resend looks at its original again (default 100 ms). */
  resendPollMs?: number;
  /**
   * How long the settlement of a produced vote is retried while the live store is unavailable
   * (a Sentinel failover) before the vote is answered VOTE_NOT_RECORDED (default
   * `DEFAULT_SETTLE_RETRY_MS`).
   */
  settleRetryMs?: number;
  /**
   * How long one live store step of a vote may go unanswered before it counts as the store being
   * unavailable (default `DEFAULT_VOTE_STORE_TIMEOUT_MS`): a connection lost with the command
   * sent holds it until the reconnect.
   */
  storeTimeoutMs?: number;
  /**
   * How many replicas of the live store must confirm a vote's withdrawal (Redis `WAIT`) before
   * it is answered with the final VOTING_CLOSED (default 0: no wait). Fewer within
   * `withdrawalWaitMs` (a primary that may die with the withdrawal unreplicated, and the
   * promoted replica count the vote) is answered the retryable VOTE_NOT_RECORDED instead: the
   * resend is answered with the vote's true fate (docs/adr/0009).
   */
  withdrawalReplicas?: number;
  /** How long a withdrawal waits for `withdrawalReplicas` (default `DEFAULT_WITHDRAWAL_WAIT_MS`). */
  withdrawalWaitMs?: number;
}

/** The timings with every default filled in. */
export type VoteSettings = Required<VoteTimings>;

/** The default of `VoteTimings.produceTimeoutMs`. */
export const DEFAULT_VOTE_PRODUCE_TIMEOUT_MS = 2_500;
/** The default of `VoteTimings.resendWaitMs`. */
export const DEFAULT_RESEND_WAIT_MS = 5_000;
/** The default of `VoteTimings.settleRetryMs`: longer than a Sentinel failover's ~2–6 s. */
export const DEFAULT_SETTLE_RETRY_MS = 8_000;
/** The default of `VoteTimings.storeTimeoutMs`. */
export const DEFAULT_VOTE_STORE_TIMEOUT_MS = 1_500;
/** The default of `VoteTimings.withdrawalWaitMs`. */
export const DEFAULT_WITHDRAWAL_WAIT_MS = 500;

export function voteSettings(timings: VoteTimings): VoteSettings {
  return {
    produceTimeoutMs: timings.produceTimeoutMs ?? DEFAULT_VOTE_PRODUCE_TIMEOUT_MS,
    resendWaitMs: timings.resendWaitMs ?? DEFAULT_RESEND_WAIT_MS,
    resendPollMs: timings.resendPollMs ?? 100,
    settleRetryMs: timings.settleRetryMs ?? DEFAULT_SETTLE_RETRY_MS,
    storeTimeoutMs: timings.storeTimeoutMs ?? DEFAULT_VOTE_STORE_TIMEOUT_MS,
    withdrawalReplicas: timings.withdrawalReplicas ?? 0,
    withdrawalWaitMs: timings.withdrawalWaitMs ?? DEFAULT_WITHDRAWAL_WAIT_MS,
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
