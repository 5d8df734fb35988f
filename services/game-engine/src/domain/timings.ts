import {
  RECORDS_DELAY_MS,
  RESULTS_MS,
  ROUND_TIME_SECONDS,
  VOTE_TOTAL_EVERY_MS,
  VOTING_GRACE_MS,
} from '@underdog/rules';

/** The phases' fixed durations (server rules); the round time is the tournament's own. */
export interface GameTimings {
  /** After the deadline, for votes in flight (≤ 1 s by the rules). */
  graceMs: number;
  /** How long the results show (10 s by the rules). */
  resultsMs: number;
  /**
   * How often a live vote total may be published, at most. Once a second: every subscriber gets
   * each one, so at 10,000 players this is most of the fan-out (docs/benchmarks.md).
   */
  voteTotalEveryMs: number;
  /**
   * How long a record write waits after it is asked for. Every game of a replica runs on one
   * event loop, and writing a round's records (a document per vote, validated and serialised)
   * keeps it busy: games whose rounds close together — tournaments that started together
   * stay in step — would resolve behind each other's records. A second later they have all
   * published their results (docs/benchmarks.md, "two tournaments at once").
   */
  recordsDelayMs: number;
  /**
   * How long the end waits for the game's records before it announces `game_ended` anyway
   * (issue 38): the records usually take milliseconds, and whoever hears the end then reads
   * them at once; with the documents store down, the players still see the end on time and the
   * records follow once the store answers.
   */
  endRecordsWaitMs: number;
}

/** `GameTimings.endRecordsWaitMs` by default. */
export const END_RECORDS_WAIT_MS = 2_000;

export const ruleTimings: GameTimings = {
  graceMs: VOTING_GRACE_MS,
  resultsMs: RESULTS_MS,
  voteTotalEveryMs: VOTE_TOTAL_EVERY_MS,
  recordsDelayMs: RECORDS_DELAY_MS,
  endRecordsWaitMs: END_RECORDS_WAIT_MS,
};

/** The shortest round the rules give a tournament (the tournament service refuses shorter). */
export const RULES_MIN_ROUND_SECONDS = ROUND_TIME_SECONDS.min;

/**
 * The timings of a game with rounds of `roundTimeSeconds`: the rules' own, except for rounds
 * shorter than any tournament may have — only a trusted in-process caller makes those (the
 * standalone demo's warm-up game, played in seconds at boot) — whose results show as long as
 * their voting did.
 */
export function timingsOfGame(timings: GameTimings, roundTimeSeconds: number): GameTimings {
  if (roundTimeSeconds <= 0 || roundTimeSeconds >= RULES_MIN_ROUND_SECONDS) return timings;
  return { ...timings, resultsMs: Math.min(timings.resultsMs, roundTimeSeconds * 1000) };
}

/** The numeric part of a prize as typed ("$5,000" → 5000; none → 0). */
export function prizeAmount(prize: string | undefined): number {
  const digits = (prize ?? '').replace(/[^0-9.]/g, '');
  const value = Math.floor(Number.parseFloat(digits));
  return Number.isFinite(value) && value > 0 ? value : 0;
}
