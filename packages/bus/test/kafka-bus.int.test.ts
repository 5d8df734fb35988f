import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createLogger, createMetricsRegistry, type Registry } from '@underdog/kit';
import { eventually, waitFor } from '@underdog/test-support';
import { createKafkaBus, type BusMessage } from '../src';
import { describeEventBusContract } from './event-bus.contract';

function brokers(): string[] {
  const value = process.env.UNDERDOG_TEST_KAFKA_BROKERS;
  if (!value)
    throw new Error('UNDERDOG_TEST_KAFKA_BROKERS is not set: the harness must provide Kafka');
  return value.split(',');
}

// kafkajs logs the handler failures these tests provoke on purpose; keep the output readable.
const logger = createLogger({ service: 'bus-test', level: 'silent' });

describeEventBusContract('Kafka', async () => {
  const bus = createKafkaBus({ brokers: brokers(), clientId: 'contract', logger });
  return { bus, cleanup: () => bus.close() };
});

describe('KafkaBus with a consumer process killed by SIGKILL', () => {
  it('gives the message the killed process was handling to the next member of its group', async () => {
    const bus = createKafkaBus({ brokers: brokers(), clientId: 'crash-test', logger });
    const topic = `sigkill-${randomUUID().slice(0, 8)}`;
    const groupId = `engine-${randomUUID().slice(0, 8)}`;
    try {
      await bus.ensureTopics([{ name: topic, partitions: 1 }]);
      // `node --require tsx/cjs`, not the tsx CLI: the CLI runs the script in a child process,
      // and SIGKILL to the CLI would leave that child, the real consumer, alive.
      const child = spawn(
        process.execPath,
        [
          '--require',
          require.resolve('tsx/cjs'),
          join(__dirname, 'fixtures/hanging-consumer.ts'),
          brokers().join(','),
          topic,
          groupId,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let childOutput = '';
      child.stdout.on('data', (chunk: Buffer) => (childOutput += chunk.toString()));
      await waitFor(() => childOutput.includes('joined'), 'the child consumer to join', 60_000);

      await bus.publish(topic, [{ key: 'game-1', value: new TextEncoder().encode('vote-1') }]);
      await waitFor(() => childOutput.includes('received vote-1'), 'the child to receive the vote');
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));

      const received: BusMessage[] = [];
      const survivor = await bus.subscribe({
        groupId,
        topics: [topic],
        fromBeginning: true,
        handleBatch: async (batch) => void received.push(...batch),
      });
      await waitFor(() => received.length > 0, 'redelivery after the crash', 60_000);
      expect(new TextDecoder().decode(received[0]!.value)).toBe('vote-1');
      await survivor.stop();
    } finally {
      await bus.close();
    }
  }, 120_000);
});

describe('KafkaBus consumer lag metric', () => {
  /** underdog_consumer_lag_messages{topic,group} as the registry would expose it on /metrics. */
  async function lagOf(registry: Registry, topic: string, group: string) {
    const metric = await registry.getSingleMetric('underdog_consumer_lag_messages')?.get();
    return metric?.values.find((v) => v.labels.topic === topic && v.labels.group === group)?.value;
  }

  it('reports the messages a group has not committed yet, per topic and group, down to 0', async () => {
    const registry = createMetricsRegistry('lag-test');
    const bus = createKafkaBus({ brokers: brokers(), clientId: 'lag-test', logger, registry });
    const topic = `lag-${randomUUID().slice(0, 8)}`;
    const groupId = `lag-group-${randomUUID().slice(0, 8)}`;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    try {
      await bus.ensureTopics([{ name: topic, partitions: 2 }]);
      await bus.publish(
        topic,
        ['a', 'b', 'c', 'd', 'e'].map((key) => ({ key, value: new TextEncoder().encode(key) })),
      );
      let handled = 0;
      const subscription = await bus.subscribe({
        groupId,
        topics: [topic],
        fromBeginning: true,
        // The first batch is held, so nothing is committed until the test releases it.
        handleBatch: async (batch) => {
          await held;
          handled += batch.length;
        },
      });
      await eventually(
        () => lagOf(registry, topic, groupId),
        (lag) => lag === 5,
        'the lag of 5 while the handler is held',
        60_000,
      );
      expect(await registry.metrics()).toContain(
        `underdog_consumer_lag_messages{topic="${topic}",group="${groupId}",service="lag-test"} 5`,
      );
      release();
      await waitFor(() => handled === 5, 'the five messages to be handled', 60_000);
      await eventually(
        () => lagOf(registry, topic, groupId),
        (lag) => lag === 0,
        'the lag of 0 after the commits',
        60_000,
      );
      await subscription.stop();
    } finally {
      release();
      await bus.close();
    }
  }, 120_000);
});
