import { countsShownIn } from '@underdog/rules';
import type { TournamentView } from '../tournaments';
import type { AdvertisementView } from '../ads';
import type {
  GameEventView,
  ImageResultView,
  LiveGameView,
  PlayerStateView,
  RoundImageView,
  TournamentChange,
} from './views';

/**
 * The `/ws` protocol's server messages (product spec §7 "Real-time socket"; docs/api-ws.md is
 * the reference), built from the shared views. Pure: the socket code serialises them once per
 * event and writes the same frame to every subscriber.
 */

/** The round as the spec's client holds it: number, time limit, images. */
export interface RoundMessagePart {
  number: number;
  timeLimit: number;
  images: RoundImageView[];
}

export interface WinnerMessagePart {
  id: string;
  username: string;
  displayName: string;
  prize: string | null;
}

export type ServerMessage =
  | { type: 'tournaments_update'; data: TournamentView[] }
  | { type: 'tournament_live'; tournament: TournamentView }
  | { type: 'tournament_finished'; tournament: TournamentView }
  | {
      type: 'game_state_update';
      tournamentId: string;
      gameState: {
        gameId: string;
        phase: LiveGameView['phase'];
        /** Per-image counts: empty while voting is open, the last results otherwise. */
        votes: Record<string, number>;
        totalVotes: number;
        round: RoundMessagePart | null;
        roundNumber: number;
        totalRounds: number;
        timeRemaining: number;
        phaseEndsAt: string | null;
        serverTime: string;
        participantCount: number;
        offlineParticipantCount: number;
        remainingCount: number;
        results: ImageResultView[];
        advertisement: AdvertisementView | null;
        winnerId: string | null;
        winnerName: string | null;
        /** Null for a visitor. */
        player: PlayerStateView | null;
      };
    }
  | { type: 'vote_processed'; tournamentId: string; imageId: string; round: number }
  | { type: 'round_update'; tournamentId: string; round: RoundMessagePart }
  | {
      type: 'game_started';
      tournamentId: string;
      gameId: string;
      participantCount: number;
      offlineParticipantCount: number;
      totalRounds: number;
      roundTimeSeconds: number;
    }
  | {
      type: 'round_voting_started';
      tournamentId: string;
      gameId: string;
      roundNumber: number;
      timeRemaining: number;
      phaseEndsAt: string | null;
      round: RoundMessagePart;
      remainingCount: number;
      offlineRemainingCount: number;
    }
  | { type: 'vote_received'; tournamentId: string; roundNumber: number; voteCount: number }
  | { type: 'voting_ended'; tournamentId: string; roundNumber: number; totalVotes: number }
  | {
      type: 'advertisement_started';
      tournamentId: string;
      duration: number;
      position: string;
      advertisement: AdvertisementView | null;
      phaseEndsAt: string | null;
      afterRoundNumber: number;
    }
  | {
      type: 'results_started';
      tournamentId: string;
      roundNumber: number;
      results: ImageResultView[];
      totalVotes: number;
      winningImageIds: string[];
      eliminatedCount: number;
      remainingCount: number;
      duration: number;
      phaseEndsAt: string | null;
    }
  | {
      type: 'round_completed';
      tournamentId: string;
      gameId: string;
      roundNumber: number;
      eliminatedCount: number;
      remainingPlayers: number;
    }
  | {
      type: 'game_ended';
      tournamentId: string;
      gameId: string;
      winnerId: string | null;
      winnerName: string | null;
      winnerMessage: string;
      roundsPlayed: number;
      decidedBy: string;
    }
  | { type: 'winner_announced'; tournamentId: string; winner: WinnerMessagePart | null }
  | { type: 'game_finished'; tournamentId: string; winner: { username: string } | null }
  | {
      /** To the disqualified player only (issue 28): they are out, with the admin's reason. */
      type: 'player_disqualified';
      tournamentId: string;
      gameId: string;
      /** The round at whose end they went out; 0 after the game. */
      roundNumber: number;
      reason: string;
      afterGame: boolean;
    }
  | {
      type: 'error';
      /** Stable: BAD_MESSAGE, UNKNOWN_TYPE, RATE_LIMITED, or the refusal's reason. */
      code: string;
      message: string;
      tournamentId?: string;
    };

export type ServerMessageType = ServerMessage['type'];

/** Every server message type, in the order docs/api-ws.md lists them. */
export const serverMessageTypes: readonly ServerMessageType[] = [
  'tournaments_update',
  'tournament_live',
  'tournament_finished',
  'game_state_update',
  'vote_processed',
  'round_update',
  'game_started',
  'round_voting_started',
  'voting_ended',
  'advertisement_started',
  'results_started',
  'vote_received',
  'game_ended',
  'winner_announced',
  'round_completed',
  'game_finished',
  'player_disqualified',
  'error',
];

const roundPart = (number: number, timeLimit: number, images: RoundImageView[]) => ({
  number,
  timeLimit,
  images,
});

/** The text of `game_ended.winnerMessage`. */
export function winnerMessage(view: Extract<GameEventView, { type: 'GameEnded' }>): string {
  if (!view.winner) return 'Check results page for final standings';
  const name = view.winner.displayName || view.winner.username;
  return view.winner.prize ? `${name} wins ${view.winner.prize}!` : `${name} wins!`;
}

/** The `/ws` messages one game event becomes, in the order they are sent. */
export function gameEventMessages(view: GameEventView): ServerMessage[] {
  const { tournamentId, gameId } = view;
  switch (view.type) {
    case 'GameStarted':
      return [
        {
          type: 'game_started',
          tournamentId,
          gameId,
          participantCount: view.participantCount,
          offlineParticipantCount: view.offlineParticipantCount,
          totalRounds: view.totalRounds,
          roundTimeSeconds: view.roundTimeSeconds,
        },
      ];
    case 'RoundVotingStarted': {
      const round = roundPart(view.roundNumber, view.roundTimeSeconds, view.images);
      return [
        // The spec's client resets to waiting with empty votes on round_update, then opens the
        // voting on round_voting_started.
        { type: 'round_update', tournamentId, round },
        {
          type: 'round_voting_started',
          tournamentId,
          gameId,
          roundNumber: view.roundNumber,
          timeRemaining: view.timeRemaining,
          phaseEndsAt: view.phaseEndsAt,
          round,
          remainingCount: view.remainingCount,
          offlineRemainingCount: view.offlineRemainingCount,
        },
      ];
    }
    case 'VoteTotal':
      return [
        {
          type: 'vote_received',
          tournamentId,
          roundNumber: view.roundNumber,
          voteCount: view.totalVotes,
        },
      ];
    case 'VotingEnded':
      return [
        {
          type: 'voting_ended',
          tournamentId,
          roundNumber: view.roundNumber,
          totalVotes: view.totalVotes,
        },
      ];
    case 'RoundResults':
      return [
        {
          type: 'results_started',
          tournamentId,
          roundNumber: view.roundNumber,
          results: view.results,
          totalVotes: view.totalVotes,
          winningImageIds: view.winningImageIds,
          eliminatedCount: view.eliminatedCount,
          remainingCount: view.remainingCount,
          duration: view.durationSeconds,
          phaseEndsAt: view.phaseEndsAt,
        },
      ];
    case 'AdvertisementStarted':
      return [
        {
          type: 'advertisement_started',
          tournamentId,
          duration: view.durationSeconds,
          position: view.position,
          advertisement: view.advertisement,
          phaseEndsAt: view.phaseEndsAt,
          afterRoundNumber: view.afterRoundNumber,
        },
      ];
    case 'RoundCompleted':
      return [
        {
          type: 'round_completed',
          tournamentId,
          gameId,
          roundNumber: view.roundNumber,
          eliminatedCount: view.eliminatedCount,
          remainingPlayers: view.remainingCount,
        },
      ];
    case 'GameEnded': {
      const winner = view.winner;
      return [
        {
          type: 'game_ended',
          tournamentId,
          gameId,
          winnerId: winner?.userId ?? null,
          winnerName: winner ? winner.displayName || winner.username : null,
          winnerMessage: winnerMessage(view),
          roundsPlayed: view.roundsPlayed,
          decidedBy: view.decidedBy,
        },
        {
          type: 'winner_announced',
          tournamentId,
          winner: winner
            ? {
                id: winner.userId,
                username: winner.username,
                displayName: winner.displayName,
                prize: winner.prize,
              }
            : null,
        },
        {
          type: 'game_finished',
          tournamentId,
          winner: winner ? { username: winner.username } : null,
        },
      ];
    }
    case 'ParticipantDisqualified':
      return [
        {
          type: 'player_disqualified',
          tournamentId,
          gameId,
          roundNumber: view.roundNumber,
          reason: view.reason,
          afterGame: view.afterGame,
        },
      ];
  }
}

/** The snapshot message a client gets when it subscribes (or resubscribes) to a tournament. */
export function snapshotMessage(game: LiveGameView): ServerMessage {
  const resolved = countsShownIn(game.phase);
  return {
    type: 'game_state_update',
    tournamentId: game.tournamentId,
    gameState: {
      gameId: game.gameId,
      phase: game.phase,
      votes: resolved
        ? Object.fromEntries(game.results.map((result) => [result.imageId, result.votes]))
        : {},
      totalVotes: game.totalVotes,
      round:
        game.roundNumber > 0
          ? roundPart(game.roundNumber, game.roundTimeSeconds, game.images)
          : null,
      roundNumber: game.roundNumber,
      totalRounds: game.totalRounds,
      timeRemaining: game.timeRemaining,
      phaseEndsAt: game.phaseEndsAt,
      serverTime: game.serverTime,
      participantCount: game.participantCount,
      offlineParticipantCount: game.offlineParticipantCount,
      remainingCount: game.remainingCount,
      results: game.results,
      advertisement: game.advertisement,
      winnerId: game.winner?.userId ?? null,
      winnerName: game.winner ? game.winner.displayName || game.winner.username : null,
      player: game.player,
    },
  };
}

/** The `/ws` messages a tournament list change becomes; `list` is the list after it. */
export function tournamentChangeMessages(
  change: TournamentChange,
  list: TournamentView[],
): ServerMessage[] {
  const messages: ServerMessage[] = [{ type: 'tournaments_update', data: list }];
  if (change.kind === 'live' && change.tournament) {
    messages.push({ type: 'tournament_live', tournament: change.tournament });
  }
  if (change.kind === 'finished' && change.tournament) {
    messages.push({ type: 'tournament_finished', tournament: change.tournament });
  }
  return messages;
}
