// Copies what a consumer group has not yet consumed of one topic onto another (the CLI:
// drain-topic.ts; docs/deploy.md, "Upgrading from before the fair-play rename").
import type { BusMessage, EventBus } from '@underdog/bus';

export interface DrainOptions {
  bus: EventBus;
  from: string;
  groupId: string;
  to: string;
  partitions: number;
  /**
   * A partition the group had already consumed to its end sends nothing: the drain is over once
   * every partition reached the end it had at the start, or nothing came for this long.
   */
  idleMs?: number;
}

/** Copies the group's unconsumed messages of `from` to `to`; resolves with how many. */
export async function drainTopic(options: DrainOptions): Promise<number> {
  const { bus, from, groupId, to, partitions } = options;
  const idleMs = options.idleMs ?? 10_000;
  const ends = await Promise.all(
    Array.from({ length: partitions }, (_, partition) => bus.endOffset(from, partition)),
  );
  const reached = ends.map((end) => BigInt(end) === 0n);
  let copied = 0;
  let lastActivity = Date.now();
  const subscription = await bus.subscribe({
    groupId,
    topics: [from],
    fromBeginning: true,
    handleBatch: async (batch: BusMessage[]) => {
      lastActivity = Date.now();
      if (batch.length === 0) return;
      await bus.publish(
        to,
        batch.map((message) => ({
          key: message.key,
          value: message.value,
          headers: message.headers,
        })),
      );
      copied += batch.length;
      const last = batch[batch.length - 1]!;
      if (BigInt(last.offset) + 1n >= BigInt(ends[last.partition] ?? '0')) {
        reached[last.partition] = true;
      }
    },
  });
  try {
    while (!reached.every(Boolean) && Date.now() - lastActivity < idleMs) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await subscription.stop();
  }
  return copied;
}
