import { eventConsumer, messageLogContext, type BusMessage, type EventBus } from '@underdog/bus';
import type { Component, Logger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  EventHeader,
  GameVoteEventSchema,
  PlayerSignalEventSchema,
  fromBinary,
  timestampDate,
  type GameVoteEvent,
  type PlayerSignalEvent,
  type Timestamp,
} from '@underdog/proto';
import { ACCOUNT_SCOPE, type StoredSignal } from './adapters/integrity-repository';
import type { Integrity } from './application/integrity';

/*
 * The integrity report's inputs (issue 28):
 *
 * - `player.signals` (the gateway, after a register, login, join or vote succeeded): who, when,
 *   device id, keyed address-prefix and user-agent hashes. A vote's signal adds only where it
 *   came from (kind `seen`);
 * - `game.votes`: the vote timing. The engine counts exactly these records and judges their
 *   `cast_at` (the gateway's stamp at admission), so the report sees the votes the game saw,
 *   with the device id the engine saw, in one record per vote id (idempotent on it);
 * - the round's images come from `game.events` (`RoundVotingStarted`, game-events-consumer.ts).
 *
 * Rows are stored idempotently on the event id (the vote id for votes), so a redelivered batch
 * changes nothing. A database failure throws (the batch comes again); a signal without a user is
 * logged and skipped.
 */

export const playerSignalsGroupId = 'tournament-player-signals';
export const gameVotesGroupId = 'tournament-integrity-votes';

const dateOf = (timestamp: Timestamp | undefined, message: BusMessage) =>
  timestamp ? timestampDate(timestamp) : new Date(message.timestamp);

/** A signal event as the row the report reads; undefined when it cannot be one. */
export function storedSignalOf(
  event: PlayerSignalEvent,
  message: BusMessage,
): StoredSignal | undefined {
  if (!event.userId) return undefined;
  const base = {
    userId: event.userId,
    at: dateOf(event.occurredAt, message),
    deviceId: event.deviceId,
    addressPrefix: event.addressPrefix,
    userAgent: event.userAgent,
  };
  switch (event.kind.case) {
    case 'registered':
      return { ...base, tournamentId: ACCOUNT_SCOPE, kind: 'registered' };
    case 'loggedIn':
      return { ...base, tournamentId: ACCOUNT_SCOPE, kind: 'loggedIn' };
    case 'joined':
      if (!event.kind.value.tournamentId) return undefined;
      return { ...base, tournamentId: event.kind.value.tournamentId, kind: 'joined' };
    case 'voted':
      if (!event.kind.value.tournamentId) return undefined;
      return { ...base, tournamentId: event.kind.value.tournamentId, kind: 'seen' };
    case undefined:
      return undefined;
  }
}

/** `game.votes` → a `voted` row (id: the vote id). */
export function storedVoteOf(
  event: GameVoteEvent,
  message: BusMessage,
): { id: string; signal: StoredSignal } | undefined {
  if (event.kind.case !== 'voteCast') return undefined;
  const vote = event.kind.value;
  const tournamentId = event.tournamentId || message.key;
  if (!tournamentId || !vote.userId || !vote.voteId) return undefined;
  return {
    id: `vote:${vote.voteId}`,
    signal: {
      userId: vote.userId,
      tournamentId,
      kind: 'voted',
      at: dateOf(vote.castAt, message),
      deviceId: vote.deviceId,
      roundNumber: vote.roundNumber,
      imageId: vote.imageId,
      username: vote.username,
    },
  };
}

function eventIdOf(message: BusMessage): string {
  return (
    message.headers[EventHeader.id] || `${message.topic}:${message.partition}:${message.offset}`
  );
}

/** The two consumers as process components. */
export function integrityConsumers(options: {
  bus: EventBus;
  integrity: Integrity;
  logger: Logger;
}): Component[] {
  const { bus, integrity, logger } = options;
  const signals = eventConsumer(bus, {
    name: 'player-signals-consumer',
    groupId: playerSignalsGroupId,
    topic: topics.playerSignals.name,
    fromBeginning: true,
    decode: (bytes) => fromBinary(PlayerSignalEventSchema, bytes),
    handle: async (event, message) => {
      const signal = storedSignalOf(event, message);
      if (signal === undefined) {
        logger.warn(messageLogContext(message, 'userId'), 'unusable player signal; skipped');
        return;
      }
      await integrity.record(`signal:${eventIdOf(message)}`, signal);
    },
    what: 'player signal',
    logContext: (message) => messageLogContext(message, 'userId'),
    logger,
  });
  const votes = eventConsumer(bus, {
    name: 'integrity-votes-consumer',
    groupId: gameVotesGroupId,
    topic: topics.gameVotes.name,
    fromBeginning: true,
    decode: (bytes) => fromBinary(GameVoteEventSchema, bytes),
    handle: async (event, message) => {
      const vote = storedVoteOf(event, message);
      if (vote === undefined) return;
      await integrity.record(vote.id, vote.signal);
    },
    what: 'game vote',
    logContext: (message) => messageLogContext(message, 'tournamentId'),
    logger,
  });
  return [signals, votes];
}
