import type { GameState } from '@underdog/live-game';
import type { LoopMemory } from '../../domain/round-loop';
import type { StepContext } from './context';

/** How often a held close looks again (a leader probe that does not answer takes longer). */
export const CLOSE_HOLD_POLL_MS = 250;

const none: number[] = [];

/**
 * Whether a round's close waits past its grace before it marks the votes closing (docs/adr/0009,
 * 7): a number, how long until it looks again; otherwise close now, and the list says which
 * votes partitions the hold's last look found without a leader (non-empty only when the hold
 * ended at its bound: the capture takes their acknowledged ends without asking them again,
 * `captureEnd`, so a hold at its bound does not also wait out the capture's leader wait).
 *
 * A vote cast in time whose produce failed (its partition had no leader: a broker died) is
 * `held` by the gateway's settlement, and its resend is admitted past the deadline until the
 * close begins. The close waits while:
 * - a held player (`rN:held` of any vote slot) has no ballot — the player's client sends the vote
 *   again while its round is shown;
 * - a votes partition of the game has no leader to say where it ends within
 *   `captureLeaderWaitMs` — votes are failing there now;
 * - less than `closeHold.settleMs` passed since one had none — a produce in flight during the
 *   election still times out, and its vote becomes held only then.
 *
 * Never longer than `closeHold.maxMs` past the grace: a held player whose client stopped sending
 * (a closed tab) would otherwise hold the round for everyone. Nothing acknowledged depends on
 * the hold: it only lets votes cast in time be recorded before the close.
 */
export async function closeHold(
  game: StepContext,
  state: GameState,
  partitions: readonly number[],
  before: LoopMemory['closeHold'],
): Promise<number | readonly number[]> {
  const { live, closeHold: bounds, captureLeaderWaitMs } = game.deps;
  // The probes end with the hold: a leader that has not answered by then is leaderless anyway.
  const leftMs = bounds.maxMs - (game.now() - state.phaseEndsAt);
  const [held, leaderless] = await Promise.all([
    live.heldVotes(game.tournamentId, state.round, state.voteSlots),
    leftMs > 0 ? leaderlessOf(game, partitions, Math.min(captureLeaderWaitMs, leftMs)) : none,
  ]);
  const now = game.now();
  const unwritableAt = leaderless.length > 0 ? now : before?.unwritableAt;
  // No look at the hold's very end: what the look before it found.
  const lastLeaderless = leftMs > 0 ? leaderless : (before?.leaderless ?? none);
  const settling = unwritableAt !== undefined && now - unwritableAt < bounds.settleMs;
  if (held === 0 && !settling) {
    if (before) {
      game.log.info(
        { round: state.round, heldMs: now - before.since },
        "the round's close held no longer: every vote cast in time is recorded",
      );
    }
    return [];
  }
  const pastGraceMs = now - state.phaseEndsAt;
  const why = { round: state.round, held, leaderless, pastGraceMs };
  if (pastGraceMs >= bounds.maxMs) {
    game.log.warn(
      why,
      "the round closes with votes cast in time still unrecorded: the close's hold is over",
    );
    return lastLeaderless;
  }
  if (!before) {
    game.log.warn(why, "the round's close is held for votes cast in time not yet recorded");
  }
  game.remember({
    closeHold: {
      round: state.round,
      since: before?.since ?? now,
      unwritableAt,
      leaderless: lastLeaderless,
    },
  });
  // Looked at again when the hold ends, not up to a poll after it.
  return Math.min(CLOSE_HOLD_POLL_MS, bounds.maxMs - pastGraceMs);
}

/** The partitions whose leader does not say where they end within `waitMs`. */
async function leaderlessOf(
  game: StepContext,
  partitions: readonly number[],
  waitMs: number,
): Promise<number[]> {
  const answered = await Promise.all(
    partitions.map((partition) => leaderAnswers(game, partition, waitMs)),
  );
  return partitions.filter((_, i) => !answered[i]);
}

async function leaderAnswers(
  game: StepContext,
  partition: number,
  waitMs: number,
): Promise<boolean> {
  const answered = await withinLeaderWait(game, game.deps.votes.endOffset(partition), waitMs);
  return typeof answered === 'string';
}

/**
 * What a question to a votes partition's leader (`asked`) answers within `waitMs` (by default
 * `captureLeaderWaitMs`): its value, or its error; undefined when it has not settled by then (an
 * election under way).
 */
export async function withinLeaderWait<T>(
  game: StepContext,
  asked: Promise<T>,
  waitMs = game.deps.captureLeaderWaitMs,
): Promise<T | Error | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const answered = await Promise.race([
    asked.catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))),
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), waitMs);
    }),
  ]);
  clearTimeout(timer);
  return answered;
}
