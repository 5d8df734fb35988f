// Over 300 lines: the list of game events, one entry each, read as one table.
import { toAdvertisementView, type AdvertisementView } from '../ads';
import {
  boolean,
  gameEvent,
  gatewayOnly,
  ids,
  int,
  listOf,
  objectOrNull,
  string,
  timeOrNull,
  type MessageOfDescription,
  type ViewOfDescription,
} from './game-event-kit';
import {
  imageView,
  iso,
  resultView,
  roundPart,
  secondsUntil,
  winnerMessage,
} from './game-event-parts';
import type { ImageResultView, RoundImageView, WinnerView } from './round-views';

export type { GameEventBase } from './game-event-kit';

/**
 * One description per game event players see live: the fields of its view (`GameEventView`)
 * with their GraphQL types and descriptions, how they are read from the proto's case of the same
 * name (`fromProto`), and the `/ws` messages it becomes. Everything else is derived from
 * `gameEvents` below (game-event-derived.ts; the mappings' small parts are in game-event-parts.ts):
 * - the TypeScript union `GameEventView` and `toGameEventView` (views.ts), the one mapping from
 *   the proto;
 * - the GraphQL type implementing `GameEvent` (`gameEventTypeDefs`, printed into the live schema);
 * - the `/ws` messages (`gameEventMessages`), their types and the list of types (messages.ts);
 * - the tables of docs/api-ws.md (`tsx tools/docs/generate.ts`) and the web app's
 *   `GameEvents.graphql` (its codegen asks for every field of every `GameEvent`).
 *
 * A new event is one entry: its fields and a `description` (the GraphQL type's, and the "when"
 * of its `/ws` message). Without `ws` it becomes one `/ws` message named after it in snake case
 * (`RoundExtended` → `round_extended`) with the view's fields. The field builders (`int`,
 * `listOf`, …) and `gameEvent` are in game-event-kit.ts; docs/contributing.md walks an example.
 */

/**
 * Every game event clients see, in the order the schema and the docs list them. Field order is
 * the GraphQL type's; the `/ws` messages keep the spec's names and fields (docs/api-ws.md).
 */
export const gameEvents = [
  gameEvent('GameStarted', {
    fields: {
      participantCount: int(),
      offlineParticipantCount: int(),
      totalRounds: int(),
      roundTimeSeconds: int(),
    },
    fromProto: (event) => ({
      participantCount: event.participantCount,
      offlineParticipantCount: event.offlineParticipantCount,
      totalRounds: event.totalRounds,
      roundTimeSeconds: event.roundTimeSeconds,
    }),
    ws: (message) => [
      message('game_started', 'the game exists', (view) => ({
        tournamentId: view.tournamentId,
        gameId: view.gameId,
        participantCount: view.participantCount,
        offlineParticipantCount: view.offlineParticipantCount,
        totalRounds: view.totalRounds,
        roundTimeSeconds: view.roundTimeSeconds,
      })),
    ],
  }),

  gameEvent('RoundVotingStarted', {
    description: "A round's voting opened (offline players' choices are already cast).",
    fields: {
      roundNumber: int(),
      images: listOf<RoundImageView>('RoundImage')(),
      roundTimeSeconds: int(),
      phaseEndsAt: timeOrNull('ISO 8601 voting deadline'),
      timeRemaining: int('Whole seconds left when the event was sent'),
      remainingCount: int('Participants still in (who may vote)'),
      offlineRemainingCount: int(),
    },
    fromProto: (event, now) => {
      const phaseEndsAt = iso(event.phaseEndsAt);
      return {
        roundNumber: event.roundNumber,
        images: event.images.map(imageView),
        roundTimeSeconds: event.roundTimeSeconds,
        phaseEndsAt,
        timeRemaining: secondsUntil(phaseEndsAt, now),
        remainingCount: event.remainingCount,
        offlineRemainingCount: event.offlineRemainingCount,
      };
    },
    ws: (message) => [
      // The spec's client resets to waiting with empty votes on round_update, then opens the
      // voting on round_voting_started.
      message('round_update', 'a new round (just before its voting opens)', (view) => ({
        tournamentId: view.tournamentId,
        round: roundPart(view.roundNumber, view.roundTimeSeconds, view.images),
      })),
      message('round_voting_started', 'voting opens', (view) => ({
        tournamentId: view.tournamentId,
        gameId: view.gameId,
        roundNumber: view.roundNumber,
        timeRemaining: view.timeRemaining,
        phaseEndsAt: view.phaseEndsAt,
        round: roundPart(view.roundNumber, view.roundTimeSeconds, view.images),
        remainingCount: view.remainingCount,
        offlineRemainingCount: view.offlineRemainingCount,
      })),
    ],
  }),

  gameEvent('VoteTotal', {
    description:
      'The live total of votes this round (a few per second at most; never per-image counts).',
    fields: { roundNumber: int(), totalVotes: int() },
    fromProto: (event) => ({ roundNumber: event.roundNumber, totalVotes: event.totalVotes }),
    ws: (message) => [
      message('vote_received', 'the live total moved (once a second at most, paced ¹)', (view) => ({
        tournamentId: view.tournamentId,
        roundNumber: view.roundNumber,
        voteCount: view.totalVotes,
      })),
    ],
  }),

  gameEvent('VotingEnded', {
    fields: { roundNumber: int(), totalVotes: int() },
    fromProto: (event) => ({ roundNumber: event.roundNumber, totalVotes: event.totalVotes }),
    ws: (message) => [
      message('voting_ended', 'the deadline passed; votes are being counted', (view) => ({
        tournamentId: view.tournamentId,
        roundNumber: view.roundNumber,
        totalVotes: view.totalVotes,
      })),
    ],
  }),

  gameEvent('RoundResults', {
    description: 'The per-image counts and who goes on.',
    fields: {
      roundNumber: int(),
      results: listOf<ImageResultView>('ImageResult')(),
      totalVotes: int(),
      winningImageIds: ids(),
      eliminatedCount: int(),
      remainingCount: int(),
      durationSeconds: int(),
      phaseEndsAt: timeOrNull(),
    },
    fromProto: (event) => ({
      roundNumber: event.roundNumber,
      results: event.results.map(resultView),
      totalVotes: event.totalVotes,
      winningImageIds: [...event.winningImageIds],
      eliminatedCount: event.eliminatedCount,
      remainingCount: event.remainingCount,
      durationSeconds: event.durationSeconds,
      phaseEndsAt: iso(event.phaseEndsAt),
      // No list of players (issue 35: it would grow with the audience): a player's own outcome
      // follows from their vote and winningImageIds, and the snapshot carries their status.
    }),
    ws: (message) => [
      message('results_started', 'the round is resolved', (view) => ({
        tournamentId: view.tournamentId,
        roundNumber: view.roundNumber,
        results: view.results,
        totalVotes: view.totalVotes,
        winningImageIds: view.winningImageIds,
        eliminatedCount: view.eliminatedCount,
        remainingCount: view.remainingCount,
        duration: view.durationSeconds,
        phaseEndsAt: view.phaseEndsAt,
      })),
    ],
  }),

  gameEvent('AdvertisementStarted', {
    fields: {
      position: string('before_game, between_rounds or after_game'),
      advertisement: objectOrNull<AdvertisementView>('Advertisement')(),
      durationSeconds: int(),
      phaseEndsAt: timeOrNull(),
      afterRoundNumber: int('The round just completed (0 before the game)'),
    },
    fromProto: (event) => ({
      position: event.position,
      advertisement: event.advertisement ? toAdvertisementView(event.advertisement) : null,
      durationSeconds: event.durationSeconds,
      phaseEndsAt: iso(event.phaseEndsAt),
      afterRoundNumber: event.afterRoundNumber,
    }),
    ws: (message) => [
      message(
        'advertisement_started',
        'an ad runs (before the game, between rounds, after it)',
        (view) => ({
          tournamentId: view.tournamentId,
          duration: view.durationSeconds,
          position: view.position,
          advertisement: view.advertisement,
          phaseEndsAt: view.phaseEndsAt,
          afterRoundNumber: view.afterRoundNumber,
        }),
      ),
    ],
  }),

  gameEvent('RoundCompleted', {
    fields: { roundNumber: int(), eliminatedCount: int(), remainingCount: int() },
    fromProto: (event) => ({
      roundNumber: event.roundNumber,
      eliminatedCount: event.eliminatedCount,
      remainingCount: event.remainingCount,
    }),
    ws: (message) => [
      message('round_completed', 'the round is over', (view) => ({
        tournamentId: view.tournamentId,
        gameId: view.gameId,
        roundNumber: view.roundNumber,
        eliminatedCount: view.eliminatedCount,
        remainingPlayers: view.remainingCount,
      })),
    ],
  }),

  gameEvent('GameEnded', {
    fields: {
      winner: objectOrNull<WinnerView>('GameWinner')(
        'Null when the last round eliminated everyone',
      ),
      roundsPlayed: int(),
      decidedBy: string('last_standing, draw or no_winner'),
    },
    fromProto: (event) => ({
      winner:
        event.winnerUserId !== undefined
          ? {
              userId: event.winnerUserId,
              username: event.winnerUsername ?? '',
              displayName: event.winnerDisplayName ?? event.winnerUsername ?? '',
              prize: event.prize ?? null,
            }
          : null,
      roundsPlayed: event.roundsPlayed,
      decidedBy: event.decidedBy,
    }),
    ws: (message) => [
      message('game_ended', 'the game is over', (view) => ({
        tournamentId: view.tournamentId,
        gameId: view.gameId,
        winnerId: view.winner?.userId ?? null,
        winnerName: view.winner ? view.winner.displayName || view.winner.username : null,
        winnerMessage: winnerMessage(view),
        roundsPlayed: view.roundsPlayed,
        decidedBy: view.decidedBy,
      })),
      message('winner_announced', 'right after `game_ended`', (view) => ({
        tournamentId: view.tournamentId,
        winner: view.winner
          ? {
              id: view.winner.userId,
              username: view.winner.username,
              displayName: view.winner.displayName,
              prize: view.winner.prize,
            }
          : null,
      })),
      message('game_finished', 'right after `winner_announced`', (view) => ({
        tournamentId: view.tournamentId,
        winner: view.winner ? { username: view.winner.username } : null,
      })),
    ],
  }),

  gameEvent('ParticipantDisqualified', {
    // Only the disqualified player is told: the real-time core delivers it to
    // `recipientUserId`'s own sockets, never to the others (issue 28).
    description:
      "To the disqualified player only: an administrator's disqualification took effect (they are out).",
    fields: {
      recipientUserId: gatewayOnly(),
      roundNumber: int('The round at whose end they went out; 0 after the game'),
      reason: string("The administrator's reason"),
      afterGame: boolean(),
    },
    fromProto: (event) => ({
      recipientUserId: event.userId,
      roundNumber: event.roundNumber,
      reason: event.reason,
      afterGame: event.afterGame,
    }),
    ws: (message) => [
      message('player_disqualified', 'to the disqualified player only ³', (view) => ({
        tournamentId: view.tournamentId,
        gameId: view.gameId,
        roundNumber: view.roundNumber,
        reason: view.reason,
        afterGame: view.afterGame,
      })),
    ],
  }),
] as const;

type Described = (typeof gameEvents)[number];

/** One `game.events` event as clients see it; `type` names the GraphQL object type. */
export type GameEventView = ViewOfDescription<Described>;

/** A `/ws` message a game event becomes. */
export type GameEventMessage = MessageOfDescription<Described>;
