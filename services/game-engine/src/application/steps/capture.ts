import { VOTES_CLOSING, type GameState } from '@underdog/live-game';
import {
  captureSettled,
  votesSettled,
  VOTES_RECHECK_MS,
  type LoopAction,
} from '../../domain/round-loop';
import type { Step, StepContext } from './context';
import { tally } from './tally';

/**
 * After the grace: mark the round's votes closing, capture the end of the tournament's
 * `game.votes` partition, then wait until the engine has applied everything before it. The
 * gateway acknowledges a vote only if its produce completed before the closing mark (or the
 * engine counted it already: `settleVote`), so an acknowledged vote is in the tally.
 *
 * Usually nothing lags by then (votes stop with the grace): the round then goes from the
 * capture to its tally in this one step. Each further step takes the lease and reads the state
 * again, and a close is the moment every player waits for (docs/benchmarks.md, the sixth pass).
 */
export async function captureVotes(
  game: StepContext,
  state: GameState,
  markClosing: boolean,
): Promise<Step> {
  const { votes } = game.deps;
  const expected = { phase: 'voting_ended', round: state.round } as const;
  // Closing first, then the capture: a vote the gateway settles after this is withdrawn
  // unless already counted, so none it acknowledges can land after the capture (ADR 9).
  if (markClosing && !(await game.advance(expected, { votesEndOffset: VOTES_CLOSING }))) {
    return 0;
  }
  const partition = await votes.partitionOf(game.tournamentId);
  const end = await votes.endOffset(partition);
  const votesEndOffset = `${partition}:${end}`;
  if (!captureSettled(await votes.applied(partition), BigInt(end))) {
    await game.advance(expected, { votesEndOffset });
    return 0;
  }
  const moved = await game.advance(expected, { votesEndOffset, phase: 'tallying' });
  return moved ? tally(game, { ...state, votesEndOffset, phase: 'tallying' }) : 0;
}

/** The votes captured: look again shortly until they are applied, then tally. */
export async function awaitVotes(
  game: StepContext,
  state: GameState,
  action: Extract<LoopAction, { kind: 'awaitVotes' }>,
  keep: () => void,
): Promise<Step> {
  const applied = await game.deps.votes.applied(action.partition);
  keep();
  const settled = votesSettled(applied, action, game.deps.votesWaitMaxMs);
  if (settled === 'wait') return VOTES_RECHECK_MS;
  if (settled === 'resolveLate') {
    game.log.error(
      {
        roundNumber: state.round,
        partition: String(action.partition),
        end: String(action.end),
        applied: String(applied),
      },
      'votes not applied in time; resolving with what is counted',
    );
  }
  const moved = await game.advance(
    { phase: 'voting_ended', round: state.round },
    { phase: 'tallying' },
  );
  return moved ? tally(game, { ...state, phase: 'tallying' }) : 0;
}
