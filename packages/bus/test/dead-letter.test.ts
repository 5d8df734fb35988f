import { createMemoryBus, DEAD_LETTER_HEADERS, parkMessages, type BusMessage } from '../src';

describe('parkMessages (a poison message parked in a dead-letter topic)', () => {
  it('publishes the message as it came, with why and where from in its headers', async () => {
    const bus = createMemoryBus();
    await bus.ensureTopics([{ name: 'things.dead-letter', partitions: 1 }]);
    const parked: BusMessage[] = [];
    const subscription = await bus.subscribe({
      groupId: 'dead-letter-reader',
      topics: ['things.dead-letter'],
      fromBeginning: true,
      handleBatch: async (batch) => {
        parked.push(...batch);
      },
    });
    const poison: BusMessage = {
      topic: 'things',
      partition: 4,
      offset: '17',
      key: 'tournament-1',
      value: Uint8Array.from([1, 2, 3]),
      headers: { 'event-id': 'e-1' },
      timestamp: 0,
    };
    await parkMessages(bus, 'things.dead-letter', [
      { message: poison, reason: 'unreadable', detail: 'x'.repeat(600) },
    ]);
    await parkMessages(bus, 'things.dead-letter', []);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await subscription.stop();
    await bus.close();
    expect(parked).toHaveLength(1);
    expect(parked[0]).toMatchObject({ key: 'tournament-1', value: Uint8Array.from([1, 2, 3]) });
    expect(parked[0]!.headers).toEqual({
      'event-id': 'e-1',
      [DEAD_LETTER_HEADERS.reason]: 'unreadable',
      [DEAD_LETTER_HEADERS.detail]: 'x'.repeat(500),
      [DEAD_LETTER_HEADERS.topic]: 'things',
      [DEAD_LETTER_HEADERS.partition]: '4',
      [DEAD_LETTER_HEADERS.offset]: '17',
    });
  });
});
