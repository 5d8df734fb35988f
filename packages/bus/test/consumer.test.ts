import { Writable } from 'node:stream';
import { createLogger, type Component } from '@underdog/kit';
import { waitFor } from '@underdog/test-support';
import {
  batchConsumer,
  createMemoryBus,
  decodingBatchHandler,
  eventConsumer,
  type BusMessage,
} from '../src';

/*
 * The one decode-and-dispatch loop, on the in-memory bus. The events are JSON here (the helper
 * is indifferent to the encoding; services pass `fromBinary(Schema, bytes)`).
 */

interface TestEvent {
  kind: 'added' | 'removed';
  id: string;
}

const topic = 'test.events';
const encode = (event: TestEvent) => new TextEncoder().encode(JSON.stringify(event));
const garbage = new Uint8Array([0xff, 0x00, 0x13]);

function decode(bytes: Uint8Array): TestEvent {
  const parsed: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  if (typeof parsed !== 'object' || parsed === null || !('kind' in parsed) || !('id' in parsed)) {
    throw new Error('not a test event');
  }
  return parsed as TestEvent;
}

function capturingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        lines.push(JSON.parse(line) as { level: number; msg: string });
      }
      done();
    },
  });
  return { logger: createLogger({ service: 'test', level: 'debug', destination }), lines };
}

describe('eventConsumer (the one decode-and-dispatch loop)', () => {
  const bus = createMemoryBus();
  let running: Component[] = [];

  beforeAll(() => bus.ensureTopics([{ name: topic, partitions: 2 }]));
  afterEach(async () => {
    for (const component of running) await component.stop?.();
    running = [];
  });
  afterAll(() => bus.close());

  async function start(component: Component): Promise<void> {
    await component.start?.();
    running.push(component);
  }

  it('decodes each message and hands the event to handle, in order per key', async () => {
    const { logger } = capturingLogger();
    const seen: string[] = [];
    await start(
      eventConsumer(bus, {
        name: 'order',
        groupId: 'group-order',
        topic,
        decode,
        handle: async (event, message) => {
          seen.push(`${event.kind}:${event.id}:${message.key}`);
        },
        what: 'test event',
        logger,
      }),
    );
    await bus.publish(topic, [
      { key: 'k', value: encode({ kind: 'added', id: '1' }) },
      { key: 'k', value: encode({ kind: 'removed', id: '1' }) },
      { key: 'k', value: encode({ kind: 'added', id: '2' }) },
    ]);
    await waitFor(() => seen.length === 3, 'three events');
    expect(seen).toEqual(['added:1:k', 'removed:1:k', 'added:2:k']);
  });

  it('logs and skips bytes that do not decode, then handles the next message', async () => {
    const { logger, lines } = capturingLogger();
    const seen: string[] = [];
    await start(
      eventConsumer(bus, {
        name: 'garbage',
        groupId: 'group-garbage',
        topic,
        fromBeginning: false,
        decode,
        handle: async (event) => {
          seen.push(event.id);
        },
        what: 'test event',
        logger,
      }),
    );
    await bus.publish(topic, [
      { key: 'g', value: garbage, headers: { 'event-id': 'bad-1' } },
      { key: 'g', value: encode({ kind: 'added', id: 'after-garbage' }) },
    ]);
    await waitFor(() => seen.length === 1, 'the message after the garbage');
    expect(seen).toEqual(['after-garbage']);
    const skipped = lines.filter((line) => line.msg === 'undecodable test event; skipped');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ level: 40, eventId: 'bad-1', key: 'g' });
  });

  it('skips a tombstone with a warning unless onTombstone says what it means', async () => {
    const { logger, lines } = capturingLogger();
    const tombstones: string[] = [];
    const handled: string[] = [];
    const handlerOf = decodingBatchHandler<TestEvent>({
      decode,
      handle: async (event) => {
        handled.push(event.id);
      },
      what: 'test event',
      logger,
    });
    const withTombstones = decodingBatchHandler<TestEvent>({
      decode,
      handle: async (event) => {
        handled.push(event.id);
      },
      onTombstone: async (message) => {
        tombstones.push(message.key);
      },
      what: 'test event',
      logger,
    });
    const tombstone: BusMessage = {
      topic,
      partition: 0,
      offset: '7',
      key: 'gone',
      value: null,
      headers: {},
      timestamp: 0,
    };
    await handlerOf([tombstone]);
    expect(lines.map((line) => line.msg)).toEqual(['tombstone instead of a test event; skipped']);
    await withTombstones([tombstone]);
    expect(tombstones).toEqual(['gone']);
    expect(handled).toEqual([]);
  });

  it('commits only after handling: a throw delivers the batch again, a handled one never', async () => {
    const { logger } = capturingLogger();
    const attempts = new Map<string, number>();
    let failOnce = true;
    const consumer = () =>
      eventConsumer(bus, {
        name: 'commit',
        groupId: 'group-commit',
        topic,
        fromBeginning: false,
        decode,
        handle: async (event) => {
          attempts.set(event.id, (attempts.get(event.id) ?? 0) + 1);
          if (event.id === 'flaky' && failOnce) {
            failOnce = false;
            throw new Error('database down');
          }
        },
        what: 'test event',
        logger,
      });
    const first = consumer();
    await start(first);
    await bus.publish(topic, [{ key: 'c', value: encode({ kind: 'added', id: 'flaky' }) }]);
    await waitFor(() => attempts.get('flaky') === 2, 'the failed event delivered again');

    // The group's position is past the handled event: a new member does not see it again.
    await first.stop?.();
    running = [];
    await start(consumer());
    await bus.publish(topic, [{ key: 'c', value: encode({ kind: 'added', id: 'later' }) }]);
    await waitFor(() => attempts.get('later') === 1, 'the next event');
    expect(attempts.get('flaky')).toBe(2);
  });
});

describe('batchConsumer (a subscription as a component)', () => {
  const bus = createMemoryBus();
  beforeAll(() => bus.ensureTopics([{ name: topic, partitions: 1 }]));
  afterAll(() => bus.close());

  it('joins its group on start with its own batch handler, and leaves on stop', async () => {
    const batches: string[][] = [];
    const consumer = batchConsumer(bus, {
      name: 'batches',
      groupId: 'group-batches',
      topics: [topic],
      fromBeginning: false,
      handleBatch: async (batch) => {
        batches.push(batch.map((message) => message.key));
      },
    });
    expect(consumer.name).toBe('batches');
    await consumer.start?.();
    await bus.publish(topic, [{ key: 'a', value: encode({ kind: 'added', id: 'a' }) }]);
    await waitFor(() => batches.flat().includes('a'), 'the first message');
    await consumer.stop?.();
    await consumer.stop?.();

    // Stopped: the group has no member, so a later message waits for the next one to join.
    await bus.publish(topic, [{ key: 'b', value: encode({ kind: 'added', id: 'b' }) }]);
    const next: string[] = [];
    const rejoined = batchConsumer(bus, {
      name: 'batches',
      groupId: 'group-batches',
      topics: [topic],
      handleBatch: async (batch) => {
        next.push(...batch.map((message) => message.key));
      },
    });
    await rejoined.start?.();
    await waitFor(() => next.includes('b'), 'the message published while stopped');
    await rejoined.stop?.();
    expect(batches.flat()).toEqual(['a']);
    expect(next).toEqual(['b']);
  });
});
