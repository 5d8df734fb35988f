import { randomUUID } from 'node:crypto';
import { createKafkaBus, type BusMessage, type EventBus } from '@underdog/bus';
import { createLogger } from '@underdog/kit';
import { waitFor } from '@underdog/test-support';
import { drainTopic } from '../upgrade/drain';

/*
 * The upgrade from before the fair-play rename (docs/deploy.md): what the old group had not
 * consumed of the old topic reaches the new topic, key, value and headers unchanged, and only
 * that; a second run copies nothing.
 */

function brokers(): string[] {
  const value = process.env.UNDERDOG_TEST_KAFKA_BROKERS;
  if (!value)
    throw new Error('UNDERDOG_TEST_KAFKA_BROKERS is not set: the harness must provide Kafka');
  return value.split(',');
}

const logger = createLogger({ service: 'drain-topic-test', level: 'silent' });

describe('drainTopic (tools/upgrade)', () => {
  const run = randomUUID().slice(0, 8);
  const from = `drain-old-${run}`;
  const to = `drain-new-${run}`;
  const groupId = `drain-group-${run}`;
  let bus: EventBus;

  beforeAll(async () => {
    bus = createKafkaBus({ brokers: brokers(), clientId: 'drain-test', logger });
    await bus.ensureTopics([
      { name: from, partitions: 2 },
      { name: to, partitions: 2 },
    ]);
  });

  afterAll(async () => {
    await bus.close();
  });

  const message = (n: number) => ({
    key: `user-${n % 3}`,
    value: new TextEncoder().encode(`signal ${n}`),
    headers: { 'event-id': `event-${n}`, 'event-type': 'underdog.events.v1.PlayerVoted' },
  });
  const idOf = (m: BusMessage) => m.headers['event-id'];

  it('copies what the group had not consumed, unchanged, and nothing twice', async () => {
    // The old consumer handled the first three before it stopped.
    await bus.publish(from, [0, 1, 2].map(message));
    const consumed: BusMessage[] = [];
    const old = await bus.subscribe({
      groupId,
      topics: [from],
      fromBeginning: true,
      handleBatch: async (batch) => {
        consumed.push(...batch);
      },
    });
    await waitFor(() => consumed.length === 3, 'the old consumer to handle the first three');
    await old.stop();
    // Then old producers published four more nobody consumed.
    await bus.publish(from, [3, 4, 5, 6].map(message));

    expect(await drainTopic({ bus, from, groupId, to, partitions: 2, idleMs: 3_000 })).toBe(4);

    const copied: BusMessage[] = [];
    const reader = await bus.subscribe({
      groupId: `drain-reader-${run}`,
      topics: [to],
      fromBeginning: true,
      handleBatch: async (batch) => {
        copied.push(...batch);
      },
    });
    try {
      await waitFor(() => copied.length >= 4, 'the four copies');
      expect(copied.map(idOf).sort()).toEqual(['event-3', 'event-4', 'event-5', 'event-6']);
      for (const m of copied) {
        const n = Number(idOf(m)!.slice('event-'.length));
        expect({
          key: m.key,
          value: new TextDecoder().decode(m.value!),
          headers: m.headers,
        }).toEqual({
          key: `user-${n % 3}`,
          value: `signal ${n}`,
          headers: message(n).headers,
        });
      }
    } finally {
      await reader.stop();
    }

    expect(await drainTopic({ bus, from, groupId, to, partitions: 2, idleMs: 1_500 })).toBe(0);
  });
});
