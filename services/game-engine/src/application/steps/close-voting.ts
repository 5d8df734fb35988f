import type { GameState } from '@underdog/live-game';
import type { Step, StepContext } from './context';

/** voting → voting_ended, the grace running to `phaseEndsAt`; announced. */
export async function closeVoting(
  game: StepContext,
  state: GameState,
  phaseEndsAt: number,
): Promise<Step> {
  const moved = await game.advance(
    { phase: 'voting', round: state.round },
    { phase: 'voting_ended', phaseEndsAt },
  );
  if (moved) {
    await game.announce({ phase: 'voting_ended', round: state.round }, () =>
      game.emit(
        state,
        {
          case: 'votingEnded',
          value: { roundNumber: state.round, totalVotes: state.totalVotes },
        },
        String(state.round),
      ),
    );
  }
  return 0;
}
