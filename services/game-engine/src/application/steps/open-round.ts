import type { GameState } from '@underdog/live-game';
import { timestampFromDate } from '@underdog/proto';
import { offlinePickImageId, roundImages } from '@underdog/rules';
import type { Participant } from '../../adapters/live-games';
import type { StepContext } from './context';

/** The stored fields of round `round`'s voting, opened at `now`. */
export function roundFields(state: GameState, round: number, now: number) {
  const endsAt = now + state.roundTimeSeconds * 1000;
  return {
    phase: 'voting',
    round,
    roundStartedAt: now,
    votingEndsAt: endsAt,
    phaseEndsAt: endsAt,
    totalVotes: 0,
    votesEndOffset: '',
    advertisement: '',
    adPosition: '',
  };
}

/** After the step to voting: offline choices cast, then the round announced. */
export async function openRound(
  game: StepContext,
  state: GameState,
  round: number,
  now: number,
): Promise<void> {
  const { live } = game.deps;
  const opened = {
    ...state,
    phase: 'voting' as const,
    round,
    roundStartedAt: now,
    votingEndsAt: now + state.roundTimeSeconds * 1000,
  };
  const offlineRemaining = await castOfflineChoices(game, opened);
  const remaining = await live.aliveCount(game.tournamentId);
  await game.emit(
    opened,
    {
      case: 'roundVotingStarted',
      value: {
        roundNumber: round,
        images: roundImages(round),
        roundTimeSeconds: state.roundTimeSeconds,
        phaseEndsAt: timestampFromDate(new Date(opened.votingEndsAt)),
        remainingCount: remaining,
        offlineRemainingCount: offlineRemaining,
      },
    },
    String(round),
    now,
  );
  game.remember({ lastTotalSent: -1 });
  game.log.info({ roundNumber: round, remaining }, 'round voting started');
}

/**
 * Offline players' pre-selected choices, cast at the round's start (idempotent by vote id); the
 * answer is how many offline players are still in.
 */
export async function castOfflineChoices(game: StepContext, state: GameState): Promise<number> {
  const { live, metrics } = game.deps;
  const [choices, aliveList] = await Promise.all([
    live.offlineChoices(game.tournamentId),
    live.alive(game.tournamentId),
  ]);
  const alive = new Set(aliveList);
  const voters = [...choices].filter(([userId]) => alive.has(userId));
  const participants =
    voters.length > 0 ? await live.participants(game.tournamentId) : ([] as Participant[]);
  const names = new Map(participants.map((p) => [p.userId, p.username]));
  for (let i = 0; i < voters.length; i += 100) {
    const replies = await Promise.all(
      voters.slice(i, i + 100).map(([userId, picks]) =>
        live.applyVote(
          {
            tournamentId: game.tournamentId,
            gameId: state.gameId,
            voteId: `offline:${state.gameId}:${state.round}:${userId}`,
            userId,
            username: names.get(userId) ?? '',
            roundNumber: state.round,
            imageId: offlinePickImageId(state.round, picks[state.round - 1]),
            castAt: state.roundStartedAt,
            offline: true,
          },
          undefined,
          state.voteSlots,
        ),
      ),
    );
    metrics.votesCounted.inc(replies.filter((reply) => reply === 'COUNTED').length);
  }
  game.remember({ offlineCastRound: state.round });
  return voters.length;
}
