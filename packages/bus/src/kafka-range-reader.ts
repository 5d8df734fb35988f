import { randomUUID } from 'node:crypto';
import type { Consumer, Kafka } from 'kafkajs';
import { withTimeout, type Logger } from '@underdog/kit';
import { busMessageOf } from './kafka-client';
import type { BusMessage, ReadRange } from './port';

/** One range being read: where it goes, how far it got, how it ends. */
interface Reading {
  next: bigint;
  /** Moved back to `next` once after a batch that started past it (a fetch from before the seek). */
  sought: boolean;
  to: bigint;
  handle: (batch: BusMessage[]) => Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface RangeReaderOptions {
  kafka: Kafka;
  topic: string;
  clientId: string;
  logger: Logger;
  /** The partition's end now (its high watermark), to cut a range that runs past it. */
  endOffset: (partition: number) => Promise<string>;
  joinTimeoutMs: number;
  /** How long one read may take before it fails (the range reader moves on to the next). */
  readTimeoutMs: number;
  retry: { initialRetryTime: number; maxRetryTime: number; retries: number };
}

/**
 * `EventBus.readRange` on kafkajs, which has no group-less consumer: one standing consumer per
 * topic in a group of its own (`<client id>-range-<uuid>`, so it holds every partition and no
 * other member waits on it), joined once and kept paused. A read moves it (`seek`) to the range's
 * start on one partition and resumes that partition until the range is handed over, then pauses
 * it again. It commits nothing: each read says where it starts.
 *
 * Why standing: a fresh group's join waits out the broker's `group.initial.rebalance.delay.ms`
 * (3 s by default) — the delay this reader exists to avoid (a round's close waiting on a votes
 * partition whose consumer went silent, issue 35).
 */
export class RangeReader {
  private consumer: Consumer | undefined;
  private starting: Promise<Consumer> | undefined;
  private readonly readings = new Map<number, Reading>();
  /** Reads waiting for their partition's current one to end, per partition. */
  private readonly queued = new Map<number, Promise<void>>();

  constructor(private readonly options: RangeReaderOptions) {}

  async read(partition: number, range: ReadRange, handle: Reading['handle']): Promise<void> {
    const consumer = await this.started();
    const before = this.queued.get(partition) ?? Promise.resolve();
    const mine = before.then(() => this.readOne(consumer, partition, range, handle));
    const settled = mine.catch(() => undefined);
    this.queued.set(partition, settled);
    try {
      await mine;
    } finally {
      if (this.queued.get(partition) === settled) this.queued.delete(partition);
    }
  }

  private async readOne(
    consumer: Consumer,
    partition: number,
    range: ReadRange,
    handle: Reading['handle'],
  ): Promise<void> {
    const end = BigInt(await this.options.endOffset(partition));
    const from = BigInt(range.from);
    const to = BigInt(range.to) < end ? BigInt(range.to) : end;
    if (from >= to) return;
    const { topic } = this.options;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve, reject) => {
      this.readings.set(partition, { next: from, sought: false, to, handle, resolve, reject });
      timer = setTimeout(
        () => reject(new Error(`reading ${topic}/${partition} ${from}..${to} timed out`)),
        this.options.readTimeoutMs,
      );
      consumer.seek({ topic, partition, offset: String(from) });
      consumer.resume([{ topic, partitions: [partition] }]);
    }).finally(() => {
      clearTimeout(timer);
      this.readings.delete(partition);
      consumer.pause([{ topic, partitions: [partition] }]);
    });
  }

  private async started(): Promise<Consumer> {
    if (this.consumer) return this.consumer;
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(): Promise<Consumer> {
    const { kafka, topic, clientId, retry } = this.options;
    const consumer = kafka.consumer({
      groupId: `${clientId}-range-${randomUUID()}`,
      maxWaitTimeInMs: 100,
      retry,
    });
    const joined = new Promise<void>((resolve) => {
      const remove = consumer.on(consumer.events.GROUP_JOIN, () => {
        remove();
        resolve();
      });
    });
    try {
      await consumer.connect();
      await this.run(consumer, joined);
    } catch (error) {
      // A start that failed (the join timed out, the broker away) leaves no member behind: the
      // next read starts a new one.
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
    this.options.logger.info({ topic }, 'range reader ready');
    this.consumer = consumer;
    return consumer;
  }

  private async run(consumer: Consumer, joined: Promise<void>): Promise<void> {
    const { topic } = this.options;
    await consumer.subscribe({ topics: [topic], fromBeginning: false });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 4,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        if (!isRunning() || isStale()) return;
        const reading = this.readings.get(batch.partition);
        if (!reading) {
          // Fetched before the pause took hold (or after its range ended): not asked for.
          consumer.pause([{ topic, partitions: [batch.partition] }]);
          return;
        }
        const first = batch.messages[0];
        if (!first) return;
        if (BigInt(first.offset) > reading.next && !reading.sought) {
          // A fetch from before the seek, it seems: read again from where the range stands, once
          // (a second time it is a real gap in the partition, and the range goes on after it).
          reading.sought = true;
          consumer.seek({ topic, partition: batch.partition, offset: String(reading.next) });
          return;
        }
        try {
          const wanted = batch.messages.filter((message) => {
            const offset = BigInt(message.offset);
            return offset >= reading.next && offset < reading.to;
          });
          if (wanted.length > 0) await reading.handle(wanted.map((m) => busMessageOf(batch, m)));
          const after = BigInt(batch.lastOffset()) + 1n;
          if (after > reading.next) reading.next = after;
          resolveOffset(batch.lastOffset());
          await heartbeat();
          if (reading.next >= reading.to) reading.resolve();
        } catch (error) {
          reading.reject(error);
        }
      },
    });
    consumer.pause([{ topic }]);
    await withTimeout(joined, this.options.joinTimeoutMs, `the ${topic} range reader joining`);
  }

  async close(): Promise<void> {
    const consumer = this.consumer ?? (await this.starting?.catch(() => undefined));
    this.consumer = undefined;
    for (const reading of this.readings.values()) reading.reject(new Error('range reader closed'));
    await consumer?.disconnect();
  }
}
