/**
 * The game's clock (server rules, "Timing"). The engine's defaults; the engine's own settings
 * (GAME_RESULTS_SECONDS, GAME_RECORDS_DELAY_MS) may override the two marked so.
 */

/**
 * After a round's deadline, how long votes in flight may still arrive (server rules: ≤ 1 s). The
 * engine ends a round's voting this long after its deadline and captures the end of the round's
 * `game.votes` partition then; the gateway's answer to a vote is settled in the live store
 * (ADR 9), not by its own clock.
 */
export const VOTING_GRACE_MS = 1000;
/** How long a round's results show (the engine's default; GAME_RESULTS_SECONDS overrides). */
export const RESULTS_MS = 10_000;
/** How often the vote total is published while voting is open. */
export const VOTE_TOTAL_EVERY_MS = 1000;
/** How long a record write waits after it is asked for (default; GAME_RECORDS_DELAY_MS). */
export const RECORDS_DELAY_MS = 1000;

/** Offline choices may be saved until this long before a tournament's start (spec §4, §9). */
export const OFFLINE_WINDOW_CLOSES_BEFORE_START_MS = 5 * 60_000;

/** A tournament's round time in seconds: its default and the bounds an administrator may set. */
export const ROUND_TIME_SECONDS = { default: 15, min: 5, max: 120 } as const;
