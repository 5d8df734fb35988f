import { eventConsumer, messageLogContext, type BusMessage, type EventBus } from '@underdog/bus';
import type { Component, Logger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  EventHeader,
  PlayerOutcomeEventSchema,
  fromBinary,
  timestampDate,
  type GameOutcome,
  type PlayerOutcomeEvent,
} from '@underdog/proto';
import type { UsersRepository } from './adapters/users';
import { withGameOutcome, type GameOutcomeFacts } from './domain/statistics';

/*
 * Consumer of `player.outcomes`: each GameOutcome adds one game to one user's statistics,
 * exactly once per game (UsersRepository.applyGameOutcome is the atomic, idempotent step), so a
 * batch delivered again — after a failure half-way through it, a rebalance or a crash before
 * the commit — changes nothing it already changed.
 *
 * - A database failure THROWS: the batch is delivered again after a back-off and the outcomes
 *   not applied yet are applied then (those already applied are recognised and skipped).
 * - What can never succeed is LOGGED AND SKIPPED, so it cannot block the partition: bytes that
 *   do not decode and tombstones (the bus's `eventConsumer` loop), a kind this version does not
 *   know, an outcome without a game id, a user that no longer exists.
 */

export const playerOutcomesGroupId = 'auth-player-outcomes';

export function outcomeFacts(outcome: GameOutcome): GameOutcomeFacts {
  return {
    gameId: outcome.gameId,
    won: outcome.won,
    prizeAmount: Number(outcome.prizeAmount),
    roundsPlayed: outcome.roundsPlayed,
    roundsWon: outcome.roundsWon,
    tournamentSize: outcome.tournamentSize,
    endedAt: outcome.endedAt ? timestampDate(outcome.endedAt) : new Date(0),
  };
}

/** Adds one game outcome to its user's statistics; dispatches on the event's case. */
export class PlayerOutcomeHandler {
  constructor(
    private readonly users: UsersRepository,
    private readonly logger: Logger,
  ) {}

  async handle(event: PlayerOutcomeEvent, message: BusMessage): Promise<void> {
    const context = logContext(message);
    switch (event.kind.case) {
      case 'gameOutcome': {
        const outcome = event.kind.value;
        const userId = event.userId || message.key;
        if (!outcome.gameId || !userId) {
          this.logger.warn(context, 'player outcome without a game or user id; skipped');
          return;
        }
        const facts = outcomeFacts(outcome);
        const result = await this.users.applyGameOutcome(userId, facts.gameId, (statistics) =>
          withGameOutcome(statistics, facts),
        );
        const log = { ...context, gameId: facts.gameId, won: facts.won, result };
        if (result === 'no-such-user') this.logger.warn(log, 'outcome of an unknown user; skipped');
        else this.logger.debug(log, 'player outcome handled');
        return;
      }
      case undefined:
        this.logger.warn(
          { ...context, eventType: message.headers[EventHeader.type] },
          'player outcome of a kind this version does not know; skipped',
        );
        return;
    }
  }
}

/** The bus's log fields of a message, its key named for what it is here. */
function logContext(message: BusMessage): Record<string, unknown> {
  return messageLogContext(message, 'userId');
}

/** The consumer as a process component: joins its group on start, leaves on stop. */
export function playerOutcomesConsumer(options: {
  bus: EventBus;
  users: UsersRepository;
  logger: Logger;
}): Component {
  const handler = new PlayerOutcomeHandler(options.users, options.logger);
  return eventConsumer(options.bus, {
    name: 'player-outcomes-consumer',
    groupId: playerOutcomesGroupId,
    topic: topics.playerOutcomes.name,
    // A new group starts at the oldest retained outcome, so no game is left uncounted.
    fromBeginning: true,
    decode: (bytes) => fromBinary(PlayerOutcomeEventSchema, bytes),
    handle: (event, message) => handler.handle(event, message),
    what: 'player outcome',
    logContext,
    logger: options.logger,
  });
}
