import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createLogger } from '@underdog/kit';
import { createKafkaBus, type BusMessage } from '../src';
import { describeEventBusContract, waitFor } from './contract';

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
