import { parseVotesEnd, VOTES_CLOSING, type GameState, type VotesEnd } from '@underdog/live-game';

/**
 * The round loop's decisions, pure: given where the store says the game stands, what this
 * runner remembers, and the time, which steps to make and when to look again. No I/O and no
 * clock: `GameRunner` reads the state, calls `nextStep`, performs the actions (each fenced) and
 * sleeps `wakeInMs`. Steps that need a fact read during the step (the votes' applied mark, an
 * advertisement picked) are decided in two parts: the action here, and `votesSettled` after.
 */

/** What the loop reads of the stored game. */
export type LoopGame = Pick<
  GameState,
  | 'phase'
  | 'round'
  | 'totalRounds'
  | 'phaseEndsAt'
  | 'votingEndsAt'
  | 'totalVotes'
  | 'votesEndOffset'
  | 'decidedBy'
  | 'adPosition'
>;

/** What one runner remembers between its steps (lost with it: a takeover starts from `freshMemory`). */
export interface LoopMemory {
  /** The round whose offline choices this runner cast (idempotent by vote id, so a repeat is harmless). */
  offlineCastRound: number;
  /** The round whose voting this runner announced (`round_voting_started`). */
  announcedRound: number;
  /** The last live vote total published, and when (ms since the epoch). */
  lastTotalSent: number;
  lastTotalAt: number;
  /** When this runner began waiting for a round's votes to be applied. */
  votesWaitFrom: { round: number; at: number } | undefined;
  /**
   * A round whose close this runner holds (`closeHold`): since when, when it last found a votes
   * partition without a leader, and which its last look found so.
   */
  closeHold:
    | {
        round: number;
        since: number;
        unwritableAt: number | undefined;
        leaderless: readonly number[];
      }
    | undefined;
}

export const freshMemory = (): LoopMemory => ({
  offlineCastRound: 0,
  announcedRound: 0,
  lastTotalSent: -1,
  lastTotalAt: 0,
  votesWaitFrom: undefined,
  closeHold: undefined,
});

export interface LoopTimings {
  graceMs: number;
  voteTotalEveryMs: number;
}

export type LoopAction =
  /** waiting → the before-game advertisement or round 1 (`ad` picked by the runner). */
  | { kind: 'begin' }
  /**
   * The round's offline choices, cast by this runner for the first time; `announce`: the round
   * is still open and this runner did not announce it (a takeover: the runner before may have
   * died between its step and its announcement), so it is announced after the cast, with its
   * stored deadline and its event id (a repeat of an announcement made is dropped downstream).
   */
  | { kind: 'castOffline'; round: number; announce: boolean }
  /** voting → voting_ended, the grace running to `phaseEndsAt`. */
  | { kind: 'closeVoting'; round: number; phaseEndsAt: number }
  /** The live vote total, at most once per `voteTotalEveryMs`. */
  | { kind: 'publishVoteTotal'; round: number; totalVotes: number }
  /**
   * After the grace: mark the votes closing (`markClosing`) — unless votes cast in time are still
   * to be recorded (`hold`: what this runner found before, for this round) — and capture the
   * partitions' ends.
   */
  | {
      kind: 'captureVotes';
      round: number;
      markClosing: boolean;
      hold: LoopMemory['closeHold'];
    }
  /** The votes captured: wait for them to be applied (see `votesSettled`), then tally. */
  | { kind: 'awaitVotes'; round: number; ends: VotesEnd[]; waitedMs: number }
  /** tallying → results. */
  | { kind: 'tally'; round: number }
  /** results → advertisement, the next round or the end. */
  | { kind: 'endResults'; round: number; ended: boolean }
  /** advertisement → the next round, or the end after the after-game advertisement. */
  | { kind: 'endAdvertisement'; round: number; finishing: boolean }
  /** The end: records, `game_ended`, outcomes; the game is then done. */
  | { kind: 'finish' };

export interface LoopStep {
  actions: LoopAction[];
  /** The memory after these actions (the runner keeps it). */
  memory: LoopMemory;
  /** When to look again after the actions, in ms (0: at once, unless an action said otherwise). */
  wakeInMs: number;
}

/** How often a round waiting for its votes to be applied looks again. */
export const VOTES_WAIT_POLL_MS = 25;

export function nextStep(
  state: { game: LoopGame; memory: LoopMemory },
  now: number,
  timings: LoopTimings,
): LoopStep {
  const { game } = state;
  let memory = state.memory;
  const wait = (ms: number): LoopStep => ({ actions: [], memory, wakeInMs: ms });
  switch (game.phase) {
    case 'waiting':
      return { actions: [{ kind: 'begin' }], memory, wakeInMs: 0 };
    case 'voting': {
      const actions: LoopAction[] = [];
      if (memory.offlineCastRound !== game.round) {
        // The runner marks the round cast once the choices are in (a failed cast is made again).
        const announce = memory.announcedRound !== game.round && now < game.votingEndsAt;
        actions.push({ kind: 'castOffline', round: game.round, announce });
      }
      if (now >= game.votingEndsAt) {
        actions.push({
          kind: 'closeVoting',
          round: game.round,
          phaseEndsAt: game.votingEndsAt + timings.graceMs,
        });
        return { actions, memory, wakeInMs: 0 };
      }
      const every = timings.voteTotalEveryMs;
      if (game.totalVotes !== memory.lastTotalSent && now - memory.lastTotalAt >= every) {
        actions.push({ kind: 'publishVoteTotal', round: game.round, totalVotes: game.totalVotes });
        memory = { ...memory, lastTotalSent: game.totalVotes, lastTotalAt: now };
      }
      return { actions, memory, wakeInMs: Math.min(game.votingEndsAt - now, every) };
    }
    case 'voting_ended': {
      if (now < game.phaseEndsAt) return wait(game.phaseEndsAt - now);
      if (game.votesEndOffset === '' || game.votesEndOffset === VOTES_CLOSING) {
        return {
          actions: [
            {
              kind: 'captureVotes',
              round: game.round,
              markClosing: game.votesEndOffset === '',
              hold: memory.closeHold?.round === game.round ? memory.closeHold : undefined,
            },
          ],
          memory,
          wakeInMs: 0,
        };
      }
      // One captured end per partition the game's vote slots use (docs/adr/0012).
      const ends = parseVotesEnd(game.votesEndOffset);
      // The wait counts from when this runner found the votes lagging, not from the grace's end
      // (after an outage of the store it would otherwise seem long before it began).
      if (memory.votesWaitFrom?.round !== game.round) {
        memory = { ...memory, votesWaitFrom: { round: game.round, at: now } };
      }
      const waitedMs = now - (memory.votesWaitFrom?.at ?? now);
      return {
        actions: [
          {
            kind: 'awaitVotes',
            round: game.round,
            ends,
            waitedMs,
          },
        ],
        memory,
        wakeInMs: 0,
      };
    }
    case 'tallying':
      return { actions: [{ kind: 'tally', round: game.round }], memory, wakeInMs: 0 };
    case 'results': {
      if (now < game.phaseEndsAt) return wait(game.phaseEndsAt - now);
      const ended = game.decidedBy !== '' || game.round >= game.totalRounds;
      return { actions: [{ kind: 'endResults', round: game.round, ended }], memory, wakeInMs: 0 };
    }
    case 'advertisement': {
      if (now < game.phaseEndsAt) return wait(game.phaseEndsAt - now);
      return {
        actions: [
          {
            kind: 'endAdvertisement',
            round: game.round,
            finishing: game.adPosition === 'after_game',
          },
        ],
        memory,
        wakeInMs: 0,
      };
    }
    case 'finished':
      return { actions: [{ kind: 'finish' }], memory, wakeInMs: 0 };
  }
}

/**
 * After `awaitVotes` read the applied mark: resolve once every vote before the captured end is
 * applied, or wait (look again in `VOTES_WAIT_POLL_MS`) for as long as that takes. Never resolve
 * without them: each was acknowledged to its player (ADR 9).
 */
export function votesSettled(applied: bigint, action: { end: bigint }): 'wait' | 'resolve' {
  return applied >= action.end ? 'resolve' : 'wait';
}

/** How long a round waits for its votes before it says so (a warning), and again each time. */
export const VOTES_WAIT_WARN_EVERY_MS = 5_000;

/** The warnings a wait of `waitedMs` has earned: one more is logged each time this grows. */
export function votesWaitWarnings(waitedMs: number): number {
  return Math.floor(waitedMs / VOTES_WAIT_WARN_EVERY_MS);
}

/** The captured votes are all applied: the round goes from the capture to its tally at once. */
export function captureSettled(applied: bigint, end: bigint): boolean {
  return applied >= end;
}
