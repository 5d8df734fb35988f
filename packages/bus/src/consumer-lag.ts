/**
 * The consumer lag of this process's groups, as Kafka sees it: committed offsets against the
 * partitions' high watermarks (the `underdog_consumer_lag_messages` gauge of `KafkaBus`).
 */
import type { Admin } from 'kafkajs';

/** The topics of each consumer group a process runs, and how many members it has there. */
export type ConsumerGroups = Map<
  string,
  { topics: Set<string>; members: number; fromBeginning: boolean }
>;

/** Every group's lag per topic; a group with nothing committed counts from where it starts. */
export async function fetchLag(
  admin: Admin,
  groups: ConsumerGroups,
): Promise<{ topic: string; group: string; lag: number }[]> {
  const measured: { topic: string; group: string; lag: number }[] = [];
  const ends = new Map<string, Map<number, { high: bigint; low: bigint }>>();
  for (const [groupId, { topics, fromBeginning }] of groups) {
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
