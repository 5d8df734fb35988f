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

/** One second of voting, for lining a slow tail up with what happened then. */
export interface AckSecond {
  /** Seconds from the first vote sent. */
  second: number;
  votes: number;
  p99: number;
  max: number;
}

/** Acknowledgement latency by the second of voting the vote was sent in. */
export function ackBySecond(outcomes: readonly PlayerOutcome[]): AckSecond[] {
  const acked = outcomes.filter(
    (outcome) => outcome.answer === 'vote_processed' && outcome.votedAt !== undefined,
  );
  if (acked.length === 0) return [];
  const first = acked.reduce((min, outcome) => Math.min(min, outcome.votedAt!), Infinity);
  const seconds = new Map<number, number[]>();
  for (const outcome of acked) {
    const second = Math.floor((outcome.votedAt! - first) / 1000);
    const list = seconds.get(second) ?? [];
    list.push(outcome.ackMs ?? 0);
    seconds.set(second, list);
  }
  return [...seconds.entries()]
    .sort(([a], [b]) => a - b)
    .map(([second, values]) => ({
      second,
      votes: values.length,
      p99: percentile(values, 99),
      max: values.reduce((max, value) => Math.max(max, value), 0),
    }));
}

/** One tournament's figures in a comparison (percentages 0–100, latencies in ms). */
export interface Figures {
  counted: number;
  ackP50: number;
  ackP95: number;
  ackP99: number;
  resultsP50: number;
  resultsP95: number;
  resultsP99: number;
  resultsWithin1s: number;
}

const FIGURE_NAMES: Record<keyof Figures, string> = {
  counted: 'acknowledged votes counted (%)',
  ackP50: 'ack p50 (ms)',
  ackP95: 'ack p95 (ms)',
  ackP99: 'ack p99 (ms)',
  resultsP50: 'results after close p50 (ms)',
  resultsP95: 'results after close p95 (ms)',
  resultsP99: 'results after close p99 (ms)',
  resultsWithin1s: 'results ≤ 1 s (%)',
};

/** Shares, where more is better; every other figure is a latency, where less is better. */
const SHARES = new Set<keyof Figures>(['counted', 'resultsWithin1s']);

const median = (values: number[]) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * Two tournaments at once against one alone: the median of each figure over the runs (every
 * tournament of a pair is one value), and whether the pair's is within `tolerance` of the single
 * case's in the worse direction (a better figure is always within).
 */
export function compareFigures(single: Figures[], pair: Figures[], tolerance = 0.2) {
  const medianOf = (runs: Figures[]) =>
    Object.fromEntries(
      (Object.keys(FIGURE_NAMES) as Array<keyof Figures>).map((key) => [
        key,
        median(runs.map((figures) => figures[key])),
      ]),
    ) as unknown as Figures;
  const one = medianOf(single);
  const two = medianOf(pair);
  const rows = (Object.keys(FIGURE_NAMES) as Array<keyof Figures>).map((key) => {
    const change = one[key] === 0 ? (two[key] === 0 ? 0 : Infinity) : two[key] / one[key] - 1;
    const worse = SHARES.has(key) ? -change : change;
    return {
      figure: FIGURE_NAMES[key],
      single: one[key],
      pair: two[key],
      change,
      within: worse <= tolerance,
    };
  });
  return { single: one, pair: two, rows, within: rows.every((row) => row.within) };
}
