/**
 * The event bus port: Kafka semantics that both adapters keep.
 *
 * - A topic has partitions; a message's key picks its partition, so messages with the same key
 *   are delivered in the order they were published.
 * - Consumers join a group; each partition is consumed by one member of a group at a time, and
 *   every group gets every message.
 * - Delivery is at least once: a batch is committed only after its handler resolves. A handler
 *   that throws (or a consumer that dies before committing) gets the same messages again, so
 *   handlers must be idempotent (events carry a unique `event-id` header for that).
 */
export interface TopicSpec {
  name: string;
  partitions: number;
  /** Log compaction: keep only the latest message per key (catalog topics). */
  compacted?: boolean;
}

export interface OutgoingMessage {
  key: string;
  /**
   * The payload; null is a tombstone: on a compacted topic it deletes the key (compaction then
   * forgets the key's earlier values, and consumers treat the key as removed).
   */
  value: Uint8Array | null;
  headers?: Record<string, string>;
}

/** Where a published message was appended: its partition and its offset there. */
export interface Appended {
  partition: number;
  /**
   * Its offset, as a decimal string; absent when the broker's answer did not carry it (Kafka
   * answers -1 for a batch it cannot place, e.g. a retry whose original it no longer remembers).
   */
  offset?: string;
}

export interface BusMessage {
  topic: string;
  partition: number;
  /** Position in the partition, as a decimal string (Kafka offsets exceed 2^53 in theory). */
  offset: string;
  key: string;
  /** Null for a tombstone (see OutgoingMessage). */
  value: Uint8Array | null;
  headers: Record<string, string>;
  /** Milliseconds since the epoch when the message was appended. */
  timestamp: number;
}

export interface SubscribeOptions {
  groupId: string;
  topics: string[];
  /** Where a group without a committed position starts: the oldest message, or only new ones. */
  fromBeginning?: boolean;
  /**
   * Receives messages of one partition, in order. Resolving commits the batch; throwing means
   * "not processed": the batch is delivered again after a short back-off.
   */
  handleBatch: (batch: BusMessage[]) => Promise<void>;
  /**
   * Offsets the consumer keeps itself, written together with the effects of what it consumed
   * (the engine's applied mark in Redis, raised by the same step that applies a vote). When
   * given, they rule over the group's committed offsets, which stay a secondary signal
   * (monitoring, lag):
   *
   * - before every batch the member reads the partition's stored offset; when the batch does not
   *   start there, the member moves to it and the batch is not handled (on start, after a
   *   rebalance, after the store lost writes while messages kept coming);
   * - every `recheckEveryMs`, for each partition it holds, a member whose stored offset fell
   *   behind where it would read next moves back to it (the store lost writes while the
   *   partition was idle);
   * - an offset the partition cannot start at (gone with retention, or past its end) is tried
   *   once; the member then starts where the partition lets it.
   */
  storedOffsets?: StoredOffsets;
}

/** Where a consumer that keeps its own offsets resumes (see `SubscribeOptions.storedOffsets`). */
export interface StoredOffsets {
  /** The next offset to consume on the partition, or undefined for the group's own position. */
  read(topic: string, partition: number): Promise<string | undefined>;
  /** How often a member compares its position with the stored offsets; default 1000 ms. */
  recheckEveryMs?: number;
}

/** A stretch of one partition: offsets from `from` up to, not including, `to` (decimal strings). */
export interface ReadRange {
  from: string;
  to: string;
}

export interface Subscription {
  /** Leaves the group after the batch in flight settles; its partitions go to other members. */
  stop(): Promise<void>;
}

export interface EventBus {
  /** Creates the topics that do not exist yet; existing ones are left as they are. */
  ensureTopics(topics: TopicSpec[]): Promise<void>;
  /**
   * Resolves once the broker acknowledged every message (Kafka: all in-sync replicas), with
   * where each was appended, in the order given.
   */
  publish(topic: string, messages: OutgoingMessage[]): Promise<Appended[]>;
  /** The partition the messages with `key` go to (the adapter's own partitioner). */
  partitionOf(topic: string, key: string): Promise<number>;
  /**
   * The offset the next message appended to the partition will get (Kafka's high watermark): a
   * consumer that has processed everything before it has seen every message published so far.
   */
  endOffset(topic: string, partition: number): Promise<string>;
  /** Resolves once the consumer has joined its group and will receive messages. */
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /**
   * Hands the messages of one partition in `range` (or up to the partition's end, if it ends
   * sooner) to `handle`, in order, batch by batch, outside any consumer group; resolves once the
   * last is handled, rejects if `handle` throws (what it handled stays handled). For a reader that
   * cannot wait for a group to hand the partition over: a round's close whose votes partition's
   * consumer went silent (issue 35). Kafka keeps a reader per topic, joined at the first call
   * (an empty range, `from` = `to`, prepares it).
   */
  readRange(
    topic: string,
    partition: number,
    range: ReadRange,
    handle: (batch: BusMessage[]) => Promise<void>,
  ): Promise<void>;
  /** Resolves when the bus can reach its broker; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
