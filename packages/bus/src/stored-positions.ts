/**
 * `StoredPositions`: one Kafka member's side of `SubscribeOptions.storedOffsets` — moving its
 * fetch position to the consumer's own stored offsets (used by `KafkaBus.subscribe`).
 */
import type { Consumer } from 'kafkajs';
import type { Logger } from '@underdog/kit';
import type { SubscribeOptions } from './port';

/**
 * A member's side of `SubscribeOptions.storedOffsets` on kafkajs: moves the member (`seek`, which
 * with manual commits only moves its fetch position) to the consumer's stored offsets before a
 * batch that does not start there, and back to them when they fall behind while it is idle.
 */
export class StoredPositions {
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
