// Over 300 lines: KafkaBus, one adapter; its public methods are the port, each a few lines.
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
  type RecordMetadata,
} from 'kafkajs';
import { withTimeout, type Logger, type Registry } from '@underdog/kit';
import { Gauge } from 'prom-client';
import { fetchLag, type ConsumerGroups } from './consumer-lag';
import { eachBatchOf } from './kafka-batches';
import { kafkaRetry, logKafkaEntry, retryRetriable } from './kafka-client';
import { partitionOf } from './partition';
import type {
  Appended,
  BusMessage,
  EventBus,
  OutgoingMessage,
  ReadRange,
  SubscribeOptions,
  Subscription,
  TopicSpec,
} from './port';
import { RangeReader } from './kafka-range-reader';
import { PublishBatcher } from './publish-batcher';
import { handleBatchInContext, withRequestIdHeader } from './request-context';
import { StoredPositions } from './stored-positions';

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
  private readonly groups: ConsumerGroups = new Map();
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

  async publish(topic: string, messages: OutgoingMessage[]): Promise<Appended[]> {
    if (messages.length === 0) return [];
    // Each message's partition named here, by the producer's own partitioner over the topic's
    // partitions, so its offset can be told from the broker's answer (`appendedOf`).
    const partitions = await this.partitionCount(topic);
    // Headers now: the request id belongs to the caller's context, not to the combined send.
    return this.batcher.publish(
      topic,
      messages.map((message) => ({
        key: message.key,
        partition: partitionOf(message.key, partitions),
        value: message.value === null ? null : Buffer.from(message.value),
        headers: withRequestIdHeader(message.headers),
      })),
    );
  }

  /** Publishes made while a send is in flight go out together in the next one (group commit). */
  private readonly batcher = new PublishBatcher<KafkaMessage, Appended>(async (batches) => {
    const producer = await this.connectedProducer();
    const answered = await producer.sendBatch({ acks: -1, topicMessages: batches });
    return batches.map((batch) => appendedOf(batch.topic, batch.messages, answered));
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
    // A leader that moved since the metadata was read (a broker back, a preferred-leader
    // rebalance) is asked again, as kafkajs's own sends are.
    const offsets = await retryRetriable(() => admin.fetchTopicOffsets(topic));
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
      eachBatch: eachBatchOf(positions, handleBatch, heartbeatEvery),
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
    return fetchLag(await this.connectedAdmin(), this.groups);
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
 * Where each message of one topic's part of a send was appended. Kafka appends a request's
 * messages for one partition as one batch, in order, from the `baseOffset` it answers for that
 * partition; an answer without one (-1) leaves those messages' offsets unknown.
 */
function appendedOf(
  topic: string,
  messages: KafkaMessage[],
  answered: RecordMetadata[],
): Appended[] {
  const next = new Map<number, bigint>();
  for (const { topicName, partition, baseOffset } of answered) {
    if (topicName === topic && baseOffset !== undefined && BigInt(baseOffset) >= 0n) {
      next.set(partition, BigInt(baseOffset));
    }
  }
  return messages.map(({ partition = -1 }) => {
    const offset = next.get(partition);
    if (offset === undefined) return { partition };
    next.set(partition, offset + 1n);
    return { partition, offset: String(offset) };
  });
}
