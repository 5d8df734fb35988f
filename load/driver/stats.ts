import type { PlayerOutcome } from './players';

/** The nearest-rank percentile of `values` (0 when empty). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** One tournament's round as its players saw it. */
export interface RoundSummary {
  votesSent: number;
  acked: number;
  /** Refusals and unanswered votes, by code (`NO_ANSWER` when nothing came back). */
  notAcked: Record<string, number>;
  ackMs: { p50: number; p95: number; p99: number; max: number };
  /**
   * ms from the close of voting to each player's results message. Voting closes at the round's
   * deadline (`phaseEndsAt` of `round_voting_started`) plus the engine's grace for votes in
   * flight (server rules: voting_ended lasts ≤ 1 s; the engine's `ruleTimings.graceMs` is 1000).
   */
  resultsMs: { p50: number; p95: number; p99: number; max: number };
  /** The same from the deadline itself (grace included). */
  resultsFromDeadlineMs: { p50: number; p95: number; p99: number; max: number };
  /** Players that got the results at all, and within 1 s of the close of voting. */
  gotResults: number;
  resultsWithin1s: number;
}

/** The engine's grace after the deadline (game-engine `ruleTimings.graceMs`). */
export const VOTING_GRACE_MS = 1000;

const spread = (values: number[]) => ({
  p50: percentile(values, 50),
  p95: percentile(values, 95),
  p99: percentile(values, 99),
  max: values.reduce((max, value) => Math.max(max, value), 0),
});

export function summarise(outcomes: readonly PlayerOutcome[]): RoundSummary {
  const sent = outcomes.filter((outcome) => outcome.votedImageId !== undefined);
  const acked = sent.filter((outcome) => outcome.answer === 'vote_processed');
  const notAcked: Record<string, number> = {};
  for (const outcome of sent) {
    if (outcome.answer === 'vote_processed') continue;
    const code = outcome.answer ?? 'NO_ANSWER';
    notAcked[code] = (notAcked[code] ?? 0) + 1;
  }
  const fromDeadline = outcomes.flatMap((outcome) =>
    outcome.resultsMs === undefined ? [] : [outcome.resultsMs],
  );
  const results = fromDeadline.map((ms) => ms - VOTING_GRACE_MS);
  return {
    votesSent: sent.length,
    acked: acked.length,
    notAcked,
    ackMs: spread(acked.map((outcome) => outcome.ackMs ?? 0)),
    resultsMs: spread(results),
    resultsFromDeadlineMs: spread(fromDeadline),
    gotResults: results.length,
    resultsWithin1s: results.filter((ms) => ms <= 1000).length,
  };
}
