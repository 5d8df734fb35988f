import { eventConsumer, messageLogContext, type BusMessage, type EventBus } from '@underdog/bus';
import type { Component, Logger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import { GameEventSchema, fromBinary, type GameEvent } from '@underdog/proto';
import type { FairPlay } from './application/fair-play';
import type { Tournaments } from './application/tournaments';

/*
 * Consumer of `game.events`: the tournament follows its game. It only translates; Tournaments
 * decides, idempotently, so a batch delivered again changes nothing it already changed:
 *
 * - GameStarted → `recordParticipantCount` (the event's `participant_count`; the same count again
 *   is a no-op);
 * - RoundVotingStarted → the round's images for the fair-play report (`FairPlay.roundStarted`,
 *   once per round);
 * - GameEnded → `markFinished` (live → finished once, `TournamentFinished` with event id
 *   `<tournamentId>:finished` through the outbox; a repeat finds it not live and does nothing);
 * - every other kind is not this service's business and is ignored.
 *
 * A database failure THROWS (the batch is delivered again after a back-off). What can never
 * succeed is LOGGED AND SKIPPED so it cannot block the partition: bytes that do not decode and
 * tombstones (the bus's `eventConsumer` loop), an event without a tournament id.
 */

export const gameEventsGroupId = 'tournament-game-events';

/** Translates one game event into the tournament's use cases; dispatches on its case. */
export class GameEventHandler {
  constructor(
    private readonly tournaments: Tournaments,
    private readonly logger: Logger,
    private readonly fairPlay?: FairPlay,
  ) {}

  async handle(event: GameEvent, message: BusMessage): Promise<void> {
    const context = logContext(message);
    const tournamentId = event.tournamentId || message.key;
    if (!tournamentId) {
      this.logger.warn(context, 'game event without a tournament id; skipped');
      return;
    }
    switch (event.kind.case) {
      case 'gameStarted':
      case 'participantJoined':
        // Live joins count as they happen, not only once the game starts.
        await this.tournaments.recordParticipantCount(
          tournamentId,
          event.kind.value.participantCount,
        );
        return;
      case 'gameEnded': {
        const finished = await this.tournaments.markFinished(tournamentId);
        if (!finished) {
          this.logger.debug({ ...context, tournamentId }, 'game ended, tournament not live; no-op');
        }
        return;
      }
      case 'roundVotingStarted':
        await this.fairPlay?.roundStarted(
          tournamentId,
          event.kind.value.roundNumber,
          event.kind.value.images.map((image) => image.id),
        );
        return;
      case 'voteTotal':
      case 'votingEnded':
      case 'roundResults':
      case 'advertisementStarted':
      case 'roundCompleted':
      // A disqualification after the game changes the winner, not the tournament: the prizes
      // consumer (prizes-consumer.ts, its own group) records it.
      case 'participantDisqualified':
      case undefined:
        // Not this service's business (undefined: a kind this version does not know).
        return;
    }
  }
}

/** The bus's log fields of a message, its key named for what it is here. */
function logContext(message: BusMessage): Record<string, unknown> {
  return messageLogContext(message, 'tournamentId');
}

/** The consumer as a process component: joins its group on start, leaves on stop. */
export function gameEventsConsumer(options: {
  bus: EventBus;
  tournaments: Tournaments;
  logger: Logger;
  fairPlay?: FairPlay;
}): Component {
  const handler = new GameEventHandler(options.tournaments, options.logger, options.fairPlay);
  return eventConsumer(options.bus, {
    name: 'game-events-consumer',
    groupId: gameEventsGroupId,
    topic: topics.gameEvents.name,
    // A new group starts at the oldest retained event, so no ended game is missed.
    fromBeginning: true,
    decode: (bytes) => fromBinary(GameEventSchema, bytes),
    handle: (event, message) => handler.handle(event, message),
    what: 'game event',
    logContext,
    logger: options.logger,
  });
}
