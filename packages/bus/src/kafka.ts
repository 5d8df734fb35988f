import {
  AssignerProtocol,
  Kafka,
  Partitioners,
  logLevel as KafkaLogLevel,
  type Admin,
  type Consumer,
  type LogEntry,
  type Message as KafkaMessage,
  type Producer,
} from 'kafkajs';
import { withTimeout, type Logger, type Registry } from '@underdog/kit';
import { Gauge } from 'prom-client';
import { partitionOf } from './partition';
import type {
  BusMessage,
  EventBus,
  OutgoingMessage,
  ReadRange,
  SubscribeOptions,
  Subscription,
  TopicSpec,
} from './port';
import { decodeHeaders, RangeReader } from './kafka-range-reader';
import { PublishBatcher } from './publish-batcher';
import { handleBatchInContext, withRequestIdHeader } from './request-context';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
  /**
   * How long the group waits for a member that stopped heartbeating before giving its partitions
   * to others. Lower means faster fail-over after a crash; Kafka's floor is 6 s by default.
   */
  sessionTimeoutMs?: number;
  /**
   * How often a consumer heartbeats to its group; at most a third of the session timeout (default:
   * a fifth of it, at least 500 ms).
   */
  heartbeatIntervalMs?: number;
  /** How long subscribe() waits for the first group join before failing. */
  joinTimeoutMs?: number;
  /**
   * The process's metrics registry: when given, `underdog_consumer_lag_messages{topic,group}`
   * reports, at each scrape, how far every consumer group of this process is behind.
   */
  registry?: Registry;
}

/** How long a scrape may spend asking Kafka for offsets before the lag is left as it was. */
const lagTimeoutMs = 5_000;

/**
 * kafkajs's retries for the client, its admin, the producer and every consumer. The backoff
 * doubles from 100 ms but is capped at 1 s (kafkajs's default cap is 30 s): when a broker dies,
 * the producer and consumers retry against the dead leader until the controller fences it
 * (`broker.session.timeout.ms`), and with the default cap the next attempt after the election
 * came up to 5 s later for the producer (a vote produce blocked that long, every vote behind it
 * answered VOTE_NOT_RECORDED) and 17–30 s later for a consumer that had exhausted its retries
 * and restarts after the last backoff. Each retry refreshes the metadata, so with the cap a send
 * or fetch reaches the new leader within about a second of its election (issue 29, the broker
 * kill). 30 retries: about 27 s of trying before a send fails or a consumer restarts.
 */
const kafkaRetry = { initialRetryTime: 100, maxRetryTime: 1_000, retries: 30 } as const;

/**
 * The event bus on Kafka (kafkajs). An idempotent producer with acks from all in-sync replicas;
 * consumers commit manually, after the handler resolves, so a crash before the commit means the
 * batch is consumed again by whichever member owns the partition next.
 */
export function createKafkaBus(options: KafkaBusOptions): KafkaBus {
  return new KafkaBus(options);
}

export class KafkaBus implements EventBus {
  private readonly kafka: Kafka;
  private producer: Producer | undefined;
  private producerConnecting: Promise<Producer> | undefined;
  private readonly consumers = new Set<Consumer>();
  private admin: Admin | undefined;
  /** The topics of each consumer group this process runs, for the lag gauge. */
  private readonly groups = new Map<
    string,
    { topics: Set<string>; members: number; fromBeginning: boolean }
  >();
  private readonly partitionCounts = new Map<string, number>();
  /** `readRange`'s standing reader per topic. */
  private readonly rangeReaders = new Map<string, RangeReader>();

  constructor(private readonly options: KafkaBusOptions) {
    const logger = options.logger.child({ component: 'kafkajs' });
    if (options.registry) {
      const gauge: Gauge<'topic' | 'group'> = new Gauge({
        name: 'underdog_consumer_lag_messages',
        help: "Messages not yet consumed by a consumer group of this process: the partitions' high watermarks minus the committed offsets, summed per topic",
        labelNames: ['topic', 'group'],
        registers: [options.registry],
        collect: () => this.measureLag(gauge),
      });
    }
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      logLevel: KafkaLogLevel.WARN,
      logCreator: () => (entry: LogEntry) => logKafkaEntry(logger, entry),
      retry: kafkaRetry,
    });
  }

  async ensureTopics(topics: TopicSpec[]): Promise<void> {
    const admin = await this.connectedAdmin();
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((topic) => !existing.has(topic.name));
    if (missing.length === 0) return;
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((topic) => ({
        topic: topic.name,
        numPartitions: topic.partitions,
        configEntries: topic.compacted ? [{ name: 'cleanup.policy', value: 'compact' }] : [],
      })),
    });
  }

  async publish(topic: string, messages: OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    // Headers now: the request id belongs to the caller's context, not to the combined send.
    await this.batcher.publish(
      topic,
      messages.map((message) => ({
        key: message.key,
        value: message.value === null ? null : Buffer.from(message.value),
        headers: withRequestIdHeader(message.headers),
      })),
    );
  }

  /** Publishes made while a send is in flight go out together in the next one (group commit). */
  private readonly batcher = new PublishBatcher<KafkaMessage>(async (batches) => {
    const producer = await this.connectedProducer();
    await producer.sendBatch({ acks: -1, topicMessages: batches });
  });

  async partitionOf(topic: string, key: string): Promise<number> {
    // The producer's own partitioner (murmur2, as Java clients), over the topic's partitions.
    return partitionOf(key, await this.partitionCount(topic));
  }

  /** Which member of a consumer group (by its client id) holds each partition of a topic. */
  async partitionOwners(groupId: string, topic: string): Promise<Map<number, string>> {
    const admin = await this.connectedAdmin();
    const { groups } = await admin.describeGroups([groupId]);
    const owners = new Map<number, string>();
    for (const member of groups[0]?.members ?? []) {
      const assignment = AssignerProtocol.MemberAssignment.decode(member.memberAssignment);
      for (const partition of assignment?.assignment[topic] ?? []) {
        owners.set(partition, member.clientId);
      }
    }
    return owners;
  }

  async endOffset(topic: string, partition: number): Promise<string> {
    const admin = await this.connectedAdmin();
    const offsets = await admin.fetchTopicOffsets(topic);
    const found = offsets.find((entry) => entry.partition === partition);
    if (!found) throw new Error(`${topic} has no partition ${partition}`);
    return found.high;
  }

  private async partitionCount(topic: string): Promise<number> {
    const known = this.partitionCounts.get(topic);
    if (known !== undefined) return known;
    const admin = await this.connectedAdmin();
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
    const count = topics[0]?.partitions.length ?? 0;
    if (count === 0) throw new Error(`topic ${topic} has no partitions`);
    this.partitionCounts.set(topic, count);
    return count;
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const sessionTimeout = this.options.sessionTimeoutMs ?? 10_000;
    const heartbeatEvery = Math.min(
      this.options.heartbeatIntervalMs ?? Math.max(500, Math.floor(sessionTimeout / 5)),
      Math.floor(sessionTimeout / 3),
    );
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      sessionTimeout,
      heartbeatInterval: heartbeatEvery,
      rebalanceTimeout: 30_000,
      maxWaitTimeInMs: 100,
      retry: kafkaRetry,
    });
    this.consumers.add(consumer);
    const group = this.groups.get(options.groupId) ?? {
      topics: new Set<string>(),
      members: 0,
      fromBeginning: options.fromBeginning ?? false,
    };
    for (const topic of options.topics) group.topics.add(topic);
    group.members += 1;
    this.groups.set(options.groupId, group);
    const joined = new Promise<void>((resolve) => {
      const remove = consumer.on(consumer.events.GROUP_JOIN, () => {
        remove();
        resolve();
      });
    });
    const positions = new StoredPositions(
      consumer,
      options.storedOffsets,
      this.options.logger.child({ group: options.groupId }),
    );
    await consumer.connect();
    await consumer.subscribe({ topics: options.topics, fromBeginning: options.fromBeginning });
    const handleBatch = handleBatchInContext(options.handleBatch);
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 4,
      eachBatch: async ({
        batch,
        commitOffsetsIfNecessary,
        heartbeat,
        isRunning,
        isStale,
        resolveOffset,
      }) => {
        if (!isRunning() || isStale() || batch.messages.length === 0) return;
        if (
          !(await positions.startsWhereStored(
            batch.topic,
            batch.partition,
            batch.messages[0]!.offset,
          ))
        )
          return;
        const messages: BusMessage[] = batch.messages.map((message) => ({
          topic: batch.topic,
          partition: batch.partition,
          offset: message.offset,
          key: message.key?.toString('utf8') ?? '',
          value: message.value === null ? null : new Uint8Array(message.value),
          headers: decodeHeaders(message.headers),
          timestamp: Number(message.timestamp),
        }));
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
          topics: [
            { topic: batch.topic, partitions: [{ partition: batch.partition, offset: next }] },
          ],
        });
        await heartbeat();
      },
    });
    await withTimeout(
      joined,
      this.options.joinTimeoutMs ?? 30_000,
      `joining consumer group ${options.groupId}`,
    );
    return {
      stop: async () => {
        positions.stop();
        this.consumers.delete(consumer);
        group.members -= 1;
        if (group.members === 0) this.groups.delete(options.groupId);
        await consumer.disconnect();
      },
    };
  }

  async readRange(
    topic: string,
    partition: number,
    range: ReadRange,
    handle: (batch: BusMessage[]) => Promise<void>,
  ): Promise<void> {
    let reader = this.rangeReaders.get(topic);
    if (!reader) {
      reader = new RangeReader({
        kafka: this.kafka,
        topic,
        clientId: this.options.clientId,
        logger: this.options.logger.child({ component: 'range-reader', topic }),
        endOffset: (p) => this.endOffset(topic, p),
        joinTimeoutMs: this.options.joinTimeoutMs ?? 30_000,
        readTimeoutMs: 30_000,
        retry: kafkaRetry,
      });
      this.rangeReaders.set(topic, reader);
    }
    await reader.read(partition, range, handle);
  }

  /**
   * Sets the lag gauge from the group's committed offsets and the partitions' high watermarks, as
   * Kafka sees them (so a stuck consumer shows a growing lag). Every replica of a group reports
   * the whole group's lag: aggregate with max, not sum. On failure the previous values stay.
   */
  private async measureLag(gauge: Gauge<'topic' | 'group'>): Promise<void> {
    if (this.groups.size === 0) return;
    try {
      const measured = await withTimeout(
        this.fetchLag(),
        lagTimeoutMs,
        'fetching offsets for the consumer lag',
      );
      gauge.reset();
      for (const { topic, group, lag } of measured) gauge.set({ topic, group }, lag);
    } catch (error) {
      this.options.logger.debug({ err: error }, 'consumer lag not measured');
    }
  }

  private async fetchLag(): Promise<{ topic: string; group: string; lag: number }[]> {
    const admin = await this.connectedAdmin();
    const measured: { topic: string; group: string; lag: number }[] = [];
    const ends = new Map<string, Map<number, { high: bigint; low: bigint }>>();
    for (const [groupId, { topics, fromBeginning }] of this.groups) {
      const committed = await admin.fetchOffsets({ groupId, topics: [...topics] });
      for (const { topic, partitions } of committed) {
        let end = ends.get(topic);
        if (!end) {
          end = new Map(
            (await admin.fetchTopicOffsets(topic)).map((p) => [
              p.partition,
              { high: BigInt(p.high), low: BigInt(p.low) },
            ]),
          );
          ends.set(topic, end);
        }
        let lag = 0n;
        for (const { partition, offset } of partitions) {
          const bounds = end.get(partition);
          if (!bounds) continue;
          // -1: nothing committed yet; the group starts at the oldest retained message or the end.
          const start = fromBeginning ? bounds.low : bounds.high;
          const position = BigInt(offset) < 0n ? start : BigInt(offset);
          if (bounds.high > position) lag += bounds.high - position;
        }
        measured.push({ topic, group: groupId, lag: Number(lag) });
      }
    }
    return measured;
  }

  async ping(): Promise<void> {
    const admin = await this.connectedAdmin();
    await admin.describeCluster();
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.consumers].map((consumer) => consumer.disconnect()));
    this.consumers.clear();
    await Promise.allSettled([...this.rangeReaders.values()].map((reader) => reader.close()));
    this.rangeReaders.clear();
    await this.producer?.disconnect();
    await this.admin?.disconnect();
    this.producer = undefined;
    this.admin = undefined;
  }

  private async connectedProducer(): Promise<Producer> {
    if (this.producer) return this.producer;
    this.producerConnecting ??= (async () => {
      const producer = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        retry: kafkaRetry,
        allowAutoTopicCreation: true,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      await producer.connect();
      this.producer = producer;
      return producer;
    })();
    try {
      return await this.producerConnecting;
    } finally {
      this.producerConnecting = undefined;
    }
  }

  private async connectedAdmin(): Promise<Admin> {
    if (!this.admin) {
      const admin = this.kafka.admin();
      await admin.connect();
      this.admin = admin;
    }
    return this.admin;
  }
}

/**
 * A member's side of `SubscribeOptions.storedOffsets` on kafkajs: moves the member (`seek`, which
 * with manual commits only moves its fetch position) to the consumer's stored offsets before a
 * batch that does not start there, and back to them when they fall behind while it is idle.
 */
class StoredPositions {
  /** Where this member reads next on each partition it consumed: `topic/partition` → offset. */
  private readonly next = new Map<string, { topic: string; partition: number; offset: string }>();
  /** The offset last moved to per partition: a batch still starting elsewhere is accepted. */
  private readonly sought = new Map<string, string>();
  /** A stored offset the partition could not start at, per partition: not sought again. */
  private readonly unreachable = new Map<string, string>();
  private readonly timer: NodeJS.Timeout | undefined;
  private rechecking = false;

  constructor(
    private readonly consumer: Consumer,
    private readonly stored: SubscribeOptions['storedOffsets'],
    private readonly logger: Logger,
  ) {
    if (!stored) return;
    // On every assignment (start, rebalance): forget the partitions handed to others, and move
    // to the stored offset of each one held, even if nothing new comes to it.
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      const assigned = payload.memberAssignment;
      for (const [key, { topic, partition }] of this.next) {
        if (!assigned[topic]?.includes(partition)) this.next.delete(key);
      }
      void this.moveToStored(assigned);
    });
    this.timer = setInterval(() => void this.recheck(), stored.recheckEveryMs ?? 1_000);
    this.timer.unref();
  }

  /** False when the member moved to the stored offset instead: the batch is not handled. */
  async startsWhereStored(topic: string, partition: number, first: string): Promise<boolean> {
    if (!this.stored) return true;
    const key = `${topic}/${partition}`;
    const wanted = await this.stored.read(topic, partition);
    if (wanted === undefined || wanted === first) {
      this.sought.delete(key);
      return true;
    }
    if (this.sought.get(key) === wanted || this.unreachable.get(key) === wanted) {
      // Moved there already and the partition starts elsewhere: the offset is gone (retention),
      // or past the partition's end (a topic made anew). Consume from where it starts, and do
      // not move again to the same offset (one past the end would never be reached).
      this.sought.delete(key);
      if (this.unreachable.get(key) !== wanted) {
        this.unreachable.set(key, wanted);
        this.logger.error(
          { topic, partition, stored: wanted, first },
          'stored offset not on the partition; consuming from where it starts',
        );
      }
      return true;
    }
    this.sought.set(key, wanted);
    this.logger.info({ topic, partition, stored: wanted, first }, 'moving to the stored offset');
    this.consumer.seek({ topic, partition, offset: wanted });
    return false;
  }

  private async moveToStored(assigned: Record<string, number[]>): Promise<void> {
    try {
      for (const [topic, partitions] of Object.entries(assigned)) {
        for (const partition of partitions) {
          const wanted = await this.stored!.read(topic, partition);
          if (wanted === undefined) continue;
          const key = `${topic}/${partition}`;
          this.sought.set(key, wanted);
          // Rechecked from now on, even if nothing comes to it.
          this.next.set(key, { topic, partition, offset: wanted });
          this.consumer.seek({ topic, partition, offset: wanted });
        }
      }
    } catch (error) {
      // The first batch of each partition is checked anyway.
      this.logger.warn({ err: error }, 'not moved to the stored offsets on joining');
    }
  }

  handled(topic: string, partition: number, next: string): void {
    if (this.stored) this.next.set(`${topic}/${partition}`, { topic, partition, offset: next });
  }

  private async recheck(): Promise<void> {
    if (!this.stored || this.rechecking) return;
    this.rechecking = true;
    try {
      for (const [key, { topic, partition, offset }] of this.next) {
        const wanted = await this.stored.read(topic, partition);
        if (wanted === undefined || BigInt(wanted) >= BigInt(offset)) continue;
        this.logger.warn(
          { topic, partition, stored: wanted, next: offset },
          'stored offset fell behind (the store lost writes); consuming again from it',
        );
        this.next.set(key, { topic, partition, offset: wanted });
        this.sought.set(key, wanted);
        this.consumer.seek({ topic, partition, offset: wanted });
      }
    } catch (error) {
      this.logger.debug({ err: error }, 'stored offsets not rechecked');
    } finally {
      this.rechecking = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

function logKafkaEntry(logger: Logger, { level, log }: LogEntry) {
  const { message, ...extra } = log;
  if (level === KafkaLogLevel.ERROR) logger.error(extra, message);
  else if (level === KafkaLogLevel.WARN) logger.warn(extra, message);
  else logger.debug(extra, message);
}
