/**
 * One Kafka member's batch loop for `KafkaBus.subscribe`: a batch checked against the stored
 * offsets, decoded to `BusMessage`s, handled with heartbeats going on, then its offset resolved and
 * committed once.
 */
import type { EachBatchHandler } from 'kafkajs';
import { busMessageOf } from './kafka-client';
import type { BusMessage, SubscribeOptions } from './port';
import type { StoredPositions } from './stored-positions';

/** The `eachBatch` of a member: `handleBatch` runs each batch, heartbeating every `heartbeatEvery` ms. */
export function eachBatchOf(
  positions: StoredPositions,
  handleBatch: SubscribeOptions['handleBatch'],
  heartbeatEvery: number,
): EachBatchHandler {
  return async ({
    batch,
    commitOffsetsIfNecessary,
    heartbeat,
    isRunning,
    isStale,
    resolveOffset,
  }) => {
    if (!isRunning() || isStale() || batch.messages.length === 0) return;
    if (
      !(await positions.startsWhereStored(batch.topic, batch.partition, batch.messages[0]!.offset))
    )
      return;
    const messages: BusMessage[] = batch.messages.map((message) => busMessageOf(batch, message));
    // A throw here leaves the offset uncommitted: kafkajs retries the batch, and if this
    // consumer is gone by then, the partition's next owner starts from the same offset.
    // Heartbeats go on while a long batch is handled, or the group would think us dead,
    // rebalance and deliver the batch twice.
    const beat = setInterval(() => void heartbeat().catch(() => undefined), heartbeatEvery);
    try {
      await handleBatch(messages);
    } finally {
      clearInterval(beat);
    }
    const next = (BigInt(batch.lastOffset()) + 1n).toString();
    // A move to a stored offset asked meanwhile (a store that lost writes) goes first.
    if (isStale()) return;
    positions.handled(batch.topic, batch.partition, next);
    // resolveOffset moves kafkajs's fetch position; the commit makes it survive this member.
    resolveOffset(batch.lastOffset());
    // One attempt, at the coordinator kafkajs holds. `consumer.commitOffsets` retries that
    // same coordinator after the group's coordinator moved (a broker killed or restarted):
    // every attempt answered NOT_COORDINATOR for ~27 s while the partition waited, and a
    // gateway stopped relaying game events (issue 29, the broker kill). A throw here makes
    // kafkajs rejoin the group, which finds the new coordinator; the batch comes again from
    // the last commit, and the handlers are idempotent.
    await commitOffsetsIfNecessary({
      topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: next }] }],
    });
    await heartbeat();
  };
}
