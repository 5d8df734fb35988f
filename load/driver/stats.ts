import { VOTING_GRACE_MS } from '@underdog/rules';
import type { PlayerOutcome } from './driver-contract';

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

/** The engine's grace after the deadline (@underdog/rules). */
export { VOTING_GRACE_MS };

export interface Spread {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

const spread = (values: number[]): Spread => ({
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

/** A player's own vote as its snapshot after the reconnect should tell it. */
function ownVoteRight(outcome: PlayerOutcome): boolean {
  const got = outcome.snapshotVote ?? null;
  if (outcome.voteAtDrop === 'acked') return got === outcome.votedImageId;
  if (outcome.voteAtDrop === 'none') return got === null;
  // Sent and unanswered (or refused) when the socket closed: the vote may have landed or not.
  return got === null || got === outcome.votedImageId;
}

/** The reconnect storm: one gateway stopped mid-voting, its players back on another. */
export interface StormFigures {
  /** Players that were in on the stopped gateway when it was stopped. */
  onStopped: number;
  /** Of those, whose socket closed (all of them, when the stop is seen). */
  dropped: number;
  /** Back (their snapshot again, on another gateway), and back within `withinMs` of the stop. */
  back: number;
  backWithin: number;
  withinMs: number;
  /** ms from the stop to each one's snapshot on the other gateway. */
  reconnectMs: Spread;
  /** Back with the snapshot's own vote (`player.voteImageId`) as it was at the drop. */
  rightVote: number;
  /** The others: what the snapshot said against what the player had. */
  wrongVote: Array<{ username: string; voteAtDrop: string; had?: string; snapshot: string | null }>;
  /** Their vote state at the drop: acknowledged, none, sent without an answer, refused. */
  voteAtDrop: Record<string, number>;
  /** Connection attempts it took to come back, p50 / max. */
  attempts: { p50: number; max: number };
  /** Players of the other gateway(s) whose socket closed too (should be 0). */
  droppedElsewhere: number;
}

/** The storm's figures from the players' outcomes; `stoppedAt` is when the signal was sent. */
export function stormFigures(
  outcomes: readonly PlayerOutcome[],
  stopped: { gateway: number; stoppedAt: number },
  withinMs = 15_000,
): StormFigures {
  const onStopped = outcomes.filter(
    (o) => o.gateway === stopped.gateway && o.inAt !== undefined && o.inAt <= stopped.stoppedAt,
  );
  const dropped = onStopped.filter((o) => o.droppedAt !== undefined);
  const back = dropped.filter((o) => o.backAt !== undefined);
  const reconnect = back.map((o) => o.backAt! - stopped.stoppedAt);
  const voteAtDrop: Record<string, number> = {};
  for (const o of dropped) voteAtDrop[o.voteAtDrop!] = (voteAtDrop[o.voteAtDrop!] ?? 0) + 1;
  const attempts = back.map((o) => o.reconnectAttempts ?? 0);
  return {
    onStopped: onStopped.length,
    dropped: dropped.length,
    back: back.length,
    backWithin: reconnect.filter((ms) => ms <= withinMs).length,
    withinMs,
    reconnectMs: spread(reconnect),
    rightVote: back.filter(ownVoteRight).length,
    wrongVote: back
      .filter((o) => !ownVoteRight(o))
      .map((o) => ({
        username: o.username,
        voteAtDrop: o.voteAtDrop!,
        ...(o.votedImageId === undefined ? {} : { had: o.votedImageId }),
        snapshot: o.snapshotVote ?? null,
      })),
    voteAtDrop,
    attempts: {
      p50: percentile(attempts, 50),
      max: attempts.reduce((max, value) => Math.max(max, value), 0),
    },
    droppedElsewhere: outcomes.filter(
      (o) => o.gateway !== stopped.gateway && o.droppedAt !== undefined,
    ).length,
  };
}

/** The waiting room: players a full gateway turned away (close 1013) and what became of them. */
export interface WaitingRoomFigures {
  offered: number;
  /** In (their snapshot) before round 1's voting opened: the players the targets are for. */
  inAtVoting: number;
  /** Turned away at least once; of those, in later (after waiting), and never in. */
  turnedAway: number;
  gotInLater: number;
  neverIn: number;
  /** 1013 closes in all (each a retry after the N s the gateway asked for). */
  closes: number;
}

export function waitingRoomFigures(
  outcomes: readonly PlayerOutcome[],
  votingOpenedAt: number,
): WaitingRoomFigures {
  const turnedAway = outcomes.filter((o) => (o.turnedAway ?? 0) > 0);
  return {
    offered: outcomes.length,
    inAtVoting: outcomes.filter((o) => o.inAt !== undefined && o.inAt <= votingOpenedAt).length,
    turnedAway: turnedAway.length,
    gotInLater: turnedAway.filter((o) => o.inAt !== undefined).length,
    neverIn: turnedAway.filter((o) => o.inAt === undefined).length,
    closes: turnedAway.reduce((sum, o) => sum + (o.turnedAway ?? 0), 0),
  };
}
