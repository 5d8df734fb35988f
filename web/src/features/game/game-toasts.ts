// The game's toasts (spec §8): what each game event announces, with its duration, and the
// tournament's own start and finish. Re-exported by `state.ts`.
import type { TournamentChangeKind } from '../../gql/operations';
import { i18n } from '../../app/i18n';
import type { GameEvent } from './game-reducer';

export interface GameToast {
  title: string;
  description?: string;
  durationMs: number;
}

/**
 * Spec §8's game toasts, with their durations, in the order they show. The end of the game is
 * one event here, which the spec's three end toasts announce one after another: Game Complete,
 * Winner Announced (when someone won) and Game Finished with the winner's username.
 */
export function toastsOf(event: GameEvent): GameToast[] {
  switch (event.__typename) {
    case 'GameStarted':
      return [{ title: i18n.t('toasts.gameStarted'), durationMs: 3_000 }];
    case 'RoundVotingStarted':
      return [
        { title: i18n.t('toasts.roundVoting', { round: event.roundNumber }), durationMs: 3_000 },
      ];
    case 'AdvertisementStarted':
      return [{ title: i18n.t('toasts.advertisement'), durationMs: 2_000 }];
    case 'RoundResults':
      return [{ title: i18n.t('toasts.roundResults'), durationMs: 3_000 }];
    case 'RoundCompleted':
      return [
        {
          title: i18n.t('toasts.roundComplete', { round: event.roundNumber }),
          description: i18n.t('toasts.roundCompleteText', {
            eliminated: event.eliminatedCount,
            remaining: event.remainingCount,
          }),
          durationMs: 4_000,
        },
      ];
    case 'GameEnded': {
      const winner = event.winner?.username;
      return [
        { title: i18n.t('toasts.gameComplete'), durationMs: 5_000 },
        ...(winner
          ? [{ title: i18n.t('toasts.winnerAnnounced'), description: winner, durationMs: 8_000 }]
          : []),
        {
          title: i18n.t('toasts.gameFinished'),
          description: winner || i18n.t('toasts.anonymous'),
          durationMs: 5_000,
        },
      ];
    }
    case 'ParticipantDisqualified':
      return [
        {
          title: i18n.t('toasts.disqualified'),
          description: event.reason,
          durationMs: 8_000,
        },
      ];
    case 'GameSnapshot':
    case 'VoteTotal':
    case 'VotingEnded':
      return [];
    default:
      // A type this tab does not know (a newer server's): nothing to announce (spec §7).
      return [];
  }
}

/** Spec §8: the tournament's own start and finish (pushed as tournament_live / _finished). */
export function tournamentToastOf(kind: TournamentChangeKind): GameToast | undefined {
  switch (kind) {
    case 'live':
      return { title: i18n.t('toasts.tournamentStarted'), durationMs: 5_000 };
    case 'finished':
      return { title: i18n.t('toasts.tournamentFinished'), durationMs: 5_000 };
    case 'created':
    case 'updated':
    case 'deleted':
      return undefined;
  }
}
