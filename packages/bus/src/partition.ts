import { Partitioners } from 'kafkajs';

/** kafkajs's default partitioner: murmur2 of the key, as the Java clients (and our producer). */
const kafkaPartitioner = Partitioners.DefaultPartitioner();

/**
 * The partition Kafka's producer sends a message keyed `key` to, among `partitions`: the one
 * `KafkaBus.partitionOf` answers with the topic's partition count. For whoever must know it
 * without a connected bus (the load driver placing tournaments apart, the fault suite).
 */
export function partitionOf(key: string, partitions: number): number {
  return kafkaPartitioner({
    topic: '',
    partitionMetadata: Array.from({ length: partitions }, (_, partitionId) => ({
      partitionId,
      leader: 0,
      partitionErrorCode: 0,
      replicas: [0],
      isr: [0],
    })),
    message: { key, value: null },
  });
}
