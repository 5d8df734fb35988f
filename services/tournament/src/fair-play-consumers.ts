import {
  batchConsumer,
  decodingBatchHandler,
  messageLogContext,
  type BusMessage,
  type EventBus,
  type EventConsumerOptions,
} from '@underdog/bus';
import { DocumentValidationError } from '@underdog/documents';
import type { Component, Logger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  EventHeader,
  FairPlaySignalSchema,
  decodeGameVoteEvent,
  fromBinary,
  timestampDate,
  type GameVoteEvent,
  type FairPlaySignal,
  type Timestamp,
} from '@underdog/proto';
import {
  ACCOUNT_SCOPE,
  type FairPlayRow,
  type StoredSignal,
} from './adapters/fair-play-repository';
import type { FairPlay } from './application/fair-play';

/*
 * The fair-play report's inputs (issue 28):
 *
 * - `fair-play.signals` (the gateway, after a register, login or join succeeded): who, when,
 *   device id, keyed address-prefix and user-agent hashes. Gateways before issue 36 also sent one
 *   per vote (kind `seen`: where the vote came from); such signals are still read;
 * - `game.votes`: the vote itself, one `voted` row per vote id. The engine counts exactly these
 *   records and judges their `cast_at` (the gateway's stamp at admission), so the report sees the
 *   votes the game saw. Where the vote came from travels on the same event (issue 36): the
 *   gateway's keyed hashes `fair_play_device_id`, `fair_play_address_prefix` and
 *   `fair_play_user_agent`, stored on the vote's row — no second message, no second row per
 *   vote. Never the vote's `device_id`: it is the raw `X-Device-ID`, which the fair-play store
 *   never keeps (issue 37);
 * - the round's images come from `game.events` (`RoundVotingStarted`, game-events-consumer.ts).
 *
 * Rows are stored idempotently on the event id (the vote id for votes), so a redelivered batch
 * changes nothing. Each consumed batch is ONE unordered `insertMany` (rows already stored are
 * ignored): one insert per vote cost the tournament service and FerretDB 14–15 CPU s in a
 * 10,000-player round (docs/benchmarks.md). A database failure throws (the batch comes again); a
 * signal without a user is logged and skipped, and so is a row the schema refuses (the batch's
 * other rows are then stored one by one, so one bad event cannot block its partition).
 */

export const fairPlaySignalsGroupId = 'tournament-fair-play-signals';
export const gameVotesGroupId = 'tournament-fair-play-votes';

const dateOf = (timestamp: Timestamp | undefined, message: BusMessage) =>
  timestamp ? timestampDate(timestamp) : new Date(message.timestamp);

/** A signal event as the row the report reads; undefined when it cannot be one. */
export function storedSignalOf(
  event: FairPlaySignal,
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

/** `game.votes` → a `voted` row (id: the vote id), with where the vote came from. */
export function storedVoteOf(event: GameVoteEvent, message: BusMessage): FairPlayRow | undefined {
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
      roundNumber: vote.roundNumber,
      imageId: vote.imageId,
      username: vote.username,
      // Keyed hashes (empty ones are not stored); never the raw `deviceId`.
      deviceId: vote.fairPlayDeviceId,
      addressPrefix: vote.fairPlayAddressPrefix,
      userAgent: vote.fairPlayUserAgent,
    },
  };
}

function eventIdOf(message: BusMessage): string {
  return (
    message.headers[EventHeader.id] || `${message.topic}:${message.partition}:${message.offset}`
  );
}

/**
 * A consumer of one topic that turns each event into at most one row and stores a whole batch's
 * rows at once: `eventConsumer`'s decode-and-skip rules per message, then one write per batch
 * (the batch is committed only after it), wrapped as a component by the bus's `batchConsumer`.
 * A new group starts at the oldest retained event, so a report misses no signal.
 */
function rowsConsumer<E>(
  bus: EventBus,
  fairPlay: FairPlay,
  options: Omit<EventConsumerOptions<E>, 'handle' | 'fromBeginning'> & {
    rowOf: (event: E, message: BusMessage) => FairPlayRow | undefined;
  },
): Component {
  const { rowOf, logger } = options;
  const handleBatch = async (batch: BusMessage[]): Promise<void> => {
    const rows: FairPlayRow[] = [];
    await decodingBatchHandler<E>({
      ...options,
      handle: async (event, message) => {
        const row = rowOf(event, message);
        if (row !== undefined) rows.push(row);
      },
    })(batch);
    try {
      await fairPlay.recordAll(rows);
    } catch (error) {
      if (!(error instanceof DocumentValidationError)) throw error;
      for (const row of rows) {
        try {
          await fairPlay.recordAll([row]);
        } catch (rowError) {
          if (!(rowError instanceof DocumentValidationError)) throw rowError;
          logger.warn({ err: rowError, rowId: row.id }, `invalid ${options.what} row; skipped`);
        }
      }
    }
  };
  return batchConsumer(bus, {
    name: options.name,
    groupId: options.groupId,
    topics: [options.topic],
    fromBeginning: true,
    handleBatch,
  });
}

/** The two consumers as process components. */
export function fairPlayConsumers(options: {
  bus: EventBus;
  fairPlay: FairPlay;
  logger: Logger;
}): Component[] {
  const { bus, fairPlay, logger } = options;
  const signals = rowsConsumer(bus, fairPlay, {
    name: 'fair-play-signals-consumer',
    groupId: fairPlaySignalsGroupId,
    topic: topics.fairPlaySignals.name,
    decode: (bytes) => fromBinary(FairPlaySignalSchema, bytes),
    rowOf: (event, message) => {
      const signal = storedSignalOf(event, message);
      if (signal === undefined) {
        logger.warn(messageLogContext(message, 'userId'), 'unusable player signal; skipped');
        return undefined;
      }
      return { id: `signal:${eventIdOf(message)}`, signal };
    },
    what: 'player signal',
    logContext: (message) => messageLogContext(message, 'userId'),
    logger,
  });
  const votes = rowsConsumer(bus, fairPlay, {
    name: 'fair-play-votes-consumer',
    groupId: gameVotesGroupId,
    topic: topics.gameVotes.name,
    // fromBinary's result and errors, without its reflection (a decode per vote: proto/README.md).
    decode: decodeGameVoteEvent,
    rowOf: storedVoteOf,
    what: 'game vote',
    logContext: (message) => messageLogContext(message, 'tournamentId'),
    logger,
  });
  return [signals, votes];
}
