import { eventConsumer, messageLogContext, type BusMessage, type EventBus } from '@underdog/bus';
import type { Component, Logger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import { GameEventSchema, fromBinary, timestampDate, type GameEvent } from '@underdog/proto';
import type { Prizes } from './application/prizes';

/*
 * Consumer of `game.events` in a group of its own (`tournament-prizes`), so that a new
 * deployment reads the retained history from the beginning and knows the winners of games that
 * ended before it: `GameEnded` records the winner (or none) once; a `ParticipantDisqualified`
 * after the game (`after_game`) replaces it with the re-decided one. Everything else is ignored.
 * Both writes are idempotent; a database failure throws (the batch comes again).
 */

export const prizesGroupId = 'tournament-prizes';

export async function handlePrizeEvent(
  prizes: Prizes,
  event: GameEvent,
  message: BusMessage,
): Promise<void> {
  const tournamentId = event.tournamentId || message.key;
  if (!tournamentId) return;
  switch (event.kind.case) {
    case 'gameEnded': {
      const ended = event.kind.value;
      await prizes.gameEnded(tournamentId, {
        winnerUserId: ended.winnerUserId,
        winnerUsername: ended.winnerUsername,
        prize: ended.prize,
        endedAt: event.occurredAt ? timestampDate(event.occurredAt) : new Date(message.timestamp),
      });
      return;
    }
    case 'participantDisqualified':
      if (event.kind.value.afterGame) {
        await prizes.winnerRedecided(tournamentId, event.kind.value.winnerUserId, '');
      }
      return;
    case 'gameStarted':
    case 'participantJoined':
    case 'roundVotingStarted':
    case 'voteTotal':
    case 'votingEnded':
    case 'roundResults':
    case 'advertisementStarted':
    case 'roundCompleted':
    case undefined:
      return; // not about the prize
  }
}

export function prizesConsumer(options: {
  bus: EventBus;
  prizes: Prizes;
  logger: Logger;
}): Component {
  return eventConsumer(options.bus, {
    name: 'prizes-consumer',
    groupId: prizesGroupId,
    topic: topics.gameEvents.name,
    fromBeginning: true,
    decode: (bytes) => fromBinary(GameEventSchema, bytes),
    handle: (event, message) => handlePrizeEvent(options.prizes, event, message),
    what: 'game event',
    logContext: (message) => messageLogContext(message, 'tournamentId'),
    logger: options.logger,
  });
}
