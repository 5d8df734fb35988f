import type { Component, Logger } from '@underdog/kit';
import type { BusMessage, EventBus, SubscribeOptions, Subscription } from './port';

/**
 * The one decode-and-dispatch loop of every event consumer (auth's `player.outcomes`, the
 * tournament's `game.events`, the engine's `tournament.lifecycle`):
 *
 * - subscribes with a group (a new group starts at the oldest retained message unless told
 *   otherwise), one message after the other, in order;
 * - decodes each message (a protobuf envelope, usually `(bytes) => fromBinary(Schema, bytes)`);
 * - what can never succeed is LOGGED AND SKIPPED so it cannot block its partition: bytes that do
 *   not decode, and a tombstone unless `onTombstone` says what it means;
 * - hands the event to `handle`, which dispatches on its case; a throw there means "not handled":
 *   nothing is committed and the batch is delivered again after a back-off (so `handle` must be
 *   idempotent), and only a batch whose every message was handled (or skipped) is committed.
 */
export interface EventConsumerOptions<E> {
  /** The component's name (logs, `/readyz`). */
  name: string;
  groupId: string;
  topic: string;
  /** Where a group without a committed position starts; default true (the oldest message). */
  fromBeginning?: boolean;
  /** Decodes a message's bytes; a throw skips the message with a warning. */
  decode: (value: Uint8Array) => E;
  /** Handles one decoded event, usually a `switch` on its case. */
  handle: (event: E, message: BusMessage) => Promise<void>;
  /** What a tombstone (null value) means on this topic; default: skipped like undecodable bytes. */
  onTombstone?: (message: BusMessage) => Promise<void>;
  /** Names the event in the skip log line: "undecodable <what>; skipped". */
  what: string;
  /** The fields logged about a message; default: event id header, key, partition, offset. */
  logContext?: (message: BusMessage) => Record<string, unknown>;
  logger: Logger;
}

/** The default log fields: where the message is, and its `event-id` header (docs/events.md). */
export function messageLogContext(message: BusMessage, keyName = 'key'): Record<string, unknown> {
  return {
    eventId: message.headers['event-id'],
    [keyName]: message.key,
    partition: message.partition,
    offset: message.offset,
  };
}

/** The batch handler of an event consumer (see EventConsumerOptions): decode, skip or handle. */
export function decodingBatchHandler<E>(
  options: Omit<EventConsumerOptions<E>, 'name' | 'groupId' | 'topic' | 'fromBeginning'>,
): (batch: BusMessage[]) => Promise<void> {
  const logContext = options.logContext ?? ((message: BusMessage) => messageLogContext(message));
  const handleOne = async (message: BusMessage): Promise<void> => {
    if (message.value === null) {
      if (options.onTombstone) return options.onTombstone(message);
      options.logger.warn(logContext(message), `tombstone instead of a ${options.what}; skipped`);
      return;
    }
    let event: E;
    try {
      event = options.decode(message.value);
    } catch (error) {
      options.logger.warn(
        { ...logContext(message), err: error },
        `undecodable ${options.what}; skipped`,
      );
      return;
    }
    await options.handle(event, message);
  };
  return async (batch) => {
    for (const message of batch) await handleOne(message);
  };
}

/** A batch consumer: a subscription with a name, as a process component (see `batchConsumer`). */
export interface BatchConsumerOptions extends SubscribeOptions {
  /** The component's name (logs, `/readyz`). */
  name: string;
}

/**
 * Any batch consumer as a process component: joins its group on start, leaves on stop. The one
 * wrapper under `eventConsumer` and under consumers whose batch handler is their own (one write
 * per batch, offsets kept in Redis, several topics, per-message metrics).
 */
export function batchConsumer(bus: EventBus, options: BatchConsumerOptions): Component {
  const { name, ...subscribe } = options;
  let subscription: Subscription | undefined;
  return {
    name,
    start: async () => {
      subscription = await bus.subscribe(subscribe);
    },
    stop: async () => {
      const stopping = subscription;
      subscription = undefined;
      await stopping?.stop();
    },
  };
}

/** An event consumer as a process component: joins its group on start, leaves on stop. */
export function eventConsumer<E>(bus: EventBus, options: EventConsumerOptions<E>): Component {
  return batchConsumer(bus, {
    name: options.name,
    groupId: options.groupId,
    topics: [options.topic],
    fromBeginning: options.fromBeginning ?? true,
    handleBatch: decodingBatchHandler(options),
  });
}
