import {
  GameEventSchema,
  GamePhase,
  LiveGameSchema,
  TournamentLifecycleEventSchema,
  TournamentStatus,
  create,
  encodeEvent,
  timestampFromDate,
  type EncodedEvent,
  type GameEvent,
  type LiveGame,
  type MessageInitShape,
  type TournamentLifecycleEvent,
} from '@underdog/proto';

/** Builders of `game.events` and `tournament.lifecycle` events for the real-time tests. */

export const t0 = new Date('2030-01-01T12:00:00.000Z');
const at = (seconds: number) => timestampFromDate(new Date(t0.getTime() + seconds * 1000));

export const images = (round: number) =>
  [0, 1, 2, 3].map((m) => ({
    id: `round-${round}-image-${m}`,
    url: `/images/${(m + round) % 8}.jpg`,
    alt: `Option ${m + 1}`,
  }));

type Kind = MessageInitShape<typeof GameEventSchema>['kind'];

export function gameEvent(tournamentId: string, kind: Kind, seconds = 0): GameEvent {
  return create(GameEventSchema, {
    tournamentId,
    gameId: `game-${tournamentId}`,
    occurredAt: at(seconds),
    kind,
  });
}

/** A short game, one of each event kind: two rounds, the second ends it with a winner. */
export function wholeGame(tournamentId: string): GameEvent[] {
  const event = (kind: Kind, seconds: number) => gameEvent(tournamentId, kind, seconds);
  return [
    event(
      {
        case: 'gameStarted',
        value: {
          participantCount: 2,
          offlineParticipantCount: 0,
          totalRounds: 17,
          roundTimeSeconds: 5,
        },
      },
      0,
    ),
    event(
      {
        case: 'advertisementStarted',
        value: {
          position: 'before_game',
          durationSeconds: 5,
          phaseEndsAt: at(5),
          afterRoundNumber: 0,
        },
      },
      0,
    ),
    event(
      {
        case: 'roundVotingStarted',
        value: {
          roundNumber: 1,
          images: images(1),
          roundTimeSeconds: 5,
          phaseEndsAt: at(10),
          remainingCount: 2,
          offlineRemainingCount: 0,
        },
      },
      5,
    ),
    event({ case: 'voteTotal', value: { roundNumber: 1, totalVotes: 2 } }, 6),
    event({ case: 'votingEnded', value: { roundNumber: 1, totalVotes: 2 } }, 10),
    event(
      {
        case: 'roundResults',
        value: {
          roundNumber: 1,
          results: [
            { imageId: 'round-1-image-0', votes: 1, percentage: 50, isWinner: true },
            { imageId: 'round-1-image-1', votes: 1, percentage: 50, isWinner: true },
            { imageId: 'round-1-image-2', votes: 0, percentage: 0, isWinner: false },
            { imageId: 'round-1-image-3', votes: 0, percentage: 0, isWinner: false },
          ],
          totalVotes: 2,
          winningImageIds: ['round-1-image-0', 'round-1-image-1'],
          eliminatedCount: 0,
          remainingCount: 2,
          durationSeconds: 10,
          phaseEndsAt: at(20),
        },
      },
      10,
    ),
    event(
      { case: 'roundCompleted', value: { roundNumber: 1, eliminatedCount: 0, remainingCount: 2 } },
      20,
    ),
    event(
      {
        case: 'gameEnded',
        value: {
          winnerUserId: 'user-a',
          winnerUsername: 'ann',
          winnerDisplayName: 'Ann',
          prize: '$5,000',
          roundsPlayed: 1,
          decidedBy: 'last_standing',
        },
      },
      21,
    ),
  ];
}

export function encodeGameEvent(event: GameEvent): EncodedEvent {
  return encodeEvent(GameEventSchema, event, { key: event.tournamentId });
}

export function lifecycleEvent(
  tournamentId: string,
  kind: 'created' | 'updated' | 'live' | 'finished' | 'deleted',
  status = TournamentStatus.UPCOMING,
): TournamentLifecycleEvent {
  const tournament = {
    id: tournamentId,
    title: `Cup ${tournamentId}`,
    status,
    startAt: timestampFromDate(t0),
    participantCount: 2,
    roundTimeSeconds: 5,
  };
  return create(TournamentLifecycleEventSchema, {
    tournamentId,
    occurredAt: timestampFromDate(t0),
    kind:
      kind === 'deleted' ? { case: 'deleted', value: {} } : { case: kind, value: { tournament } },
  });
}

export function encodeLifecycleEvent(event: TournamentLifecycleEvent): EncodedEvent {
  return encodeEvent(TournamentLifecycleEventSchema, event, { key: event.tournamentId });
}

export function liveGame(
  fields: Omit<MessageInitShape<typeof LiveGameSchema>, '$typeName'> = {},
): LiveGame {
  return create(LiveGameSchema, {
    tournamentId: 't-1',
    gameId: 'game-t-1',
    phase: GamePhase.VOTING,
    roundNumber: 1,
    totalRounds: 17,
    roundTimeSeconds: 5,
    images: images(1),
    phaseEndsAt: at(10),
    serverTime: at(6),
    totalVotes: 1,
    participantCount: 2,
    remainingCount: 2,
    results: [{ imageId: 'round-0-image-0', votes: 3, percentage: 100, isWinner: true }],
    ...fields,
  });
}
