// The three-node KRaft cluster the fault suite runs on: replication 3 and min.insync.replicas 2,
// so a write acknowledged by all in-sync replicas outlives its leader's SIGKILL.
import { Kafka, logLevel } from 'kafkajs';
import { startKafkaCluster, type KafkaCluster } from '../src';

describe('harness: the three-node Kafka cluster', () => {
  let cluster: KafkaCluster;

  beforeAll(async () => {
    cluster = await startKafkaCluster();
  }, 180_000);

  afterAll(() => cluster?.stop());

  it('keeps an acks=all write through its leader being killed, and takes the node back', async () => {
    const kafka = new Kafka({
      clientId: 'harness-cluster-test',
      brokers: cluster.brokers,
      logLevel: logLevel.NOTHING,
    });
    const admin = kafka.admin();
    const producer = kafka.producer();
    await Promise.all([admin.connect(), producer.connect()]);
    try {
      await admin.createTopics({
        waitForLeaders: true,
        topics: [{ topic: 'fault', numPartitions: 1 }],
      });
      // Every broker learns of a new topic a moment after the controller: wait for its ISR.
      await cluster.inSync('fault');
      const [metadata] = (await admin.fetchTopicMetadata({ topics: ['fault'] })).topics;
      expect(metadata?.partitions[0]?.replicas).toHaveLength(3);

      await producer.send({ topic: 'fault', acks: -1, messages: [{ value: 'before' }] });
      const leader = await cluster.leaderOf('fault', 0);
      await cluster.kill(leader);
      expect(cluster.nodes.find((node) => node.id === leader)?.pid()).toBeUndefined();
      await producer.send({ topic: 'fault', acks: -1, messages: [{ value: 'after' }] });
      expect(await cluster.leaderOf('fault', 0)).not.toBe(leader);

      await cluster.restart(leader);
      await cluster.inSync('fault');
      const offsets = await admin.fetchTopicOffsets('fault');
      expect(offsets[0]?.high).toBe('2');
    } finally {
      await Promise.all([producer.disconnect(), admin.disconnect()]);
    }
  }, 120_000);
});
