import { countsShownIn } from '@underdog/rules';
import type { TournamentView } from '../tournaments';
import type { AdvertisementView } from '../ads';
import { gameEventMessageTypes } from './game-event-derived';
import { roundPart, type RoundMessagePart } from './game-event-parts';
import type { GameEventMessage } from './game-events';
import type { ImageResultView, LiveGameView, PlayerStateView, TournamentChange } from './views';

/**
 * The `/ws` protocol's server messages (product spec §7 "Real-time socket"; docs/api-ws.md is
 * the reference), built from the shared views. Pure: the socket code serialises them once per
 * event and writes the same frame to every subscriber. The game events' messages are described
 * with their events, once each, in game-events.ts; the others are here.
 */

export type { RoundMessagePart } from './game-event-parts';
export { gameEventMessages } from './game-event-derived';
export { winnerMessage } from './game-event-parts';

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
        /** Hex SHA-256 of the draw's seed, public from the game's start; '' before (issue 37). */
        drawCommitment: string;
      };
    }
  | { type: 'vote_processed'; tournamentId: string; imageId: string; round: number }
  | GameEventMessage
  | {
      type: 'error';
      /** Stable: BAD_MESSAGE, UNKNOWN_TYPE, RATE_LIMITED, or the refusal's reason. */
      code: string;
      message: string;
      tournamentId?: string;
    };

export type ServerMessageType = ServerMessage['type'];

type OtherMessageType = Exclude<ServerMessageType, GameEventMessage['type']>;

/**
 * The messages that are not game events, with the docs' words (docs/api-ws.md's table is
 * printed from these and from game-events.ts: `tsx tools/docs/generate.ts`).
 */
export const otherServerMessages: Record<OtherMessageType, { when: string; fields: string }> = {
  tournaments_update: {
    when: 'on connect, and after every tournament list change ²',
    fields: '`data` (the list, as `GET /api/tournaments`)',
  },
  tournament_live: { when: 'a tournament went live ²', fields: '`tournament`' },
  tournament_finished: { when: 'a tournament finished ²', fields: '`tournament`' },
  game_state_update: {
    when: 'the snapshot, on every `subscribe_tournament`',
    fields: '`tournamentId`, `gameState`',
  },
  vote_processed: {
    when: 'your vote is recorded',
    fields: '`tournamentId`, `imageId`, `round`',
  },
  error: {
    when: 'a bad message, a refusal',
    fields: '`code`, `message`, `tournamentId` (when about one)',
  },
};

/** Every server message type, in the order docs/api-ws.md lists them. */
export const serverMessageTypes: readonly ServerMessageType[] = [
  'tournaments_update',
  'tournament_live',
  'tournament_finished',
  'game_state_update',
  'vote_processed',
  ...gameEventMessageTypes,
  'error',
];

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
      // The draw's commitment, public from the game's start (issue 37; '' before it).
      drawCommitment: game.drawCommitment,
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
