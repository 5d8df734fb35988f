import { randomUUID } from 'node:crypto';
import { currentRequestId, runWithRequestId } from '@underdog/kit';
import { waitFor } from '@underdog/test-support';
import type { BusMessage, EventBus, Subscription } from '../src';

export interface BusFixture {
  bus: EventBus;
  cleanup(): Promise<void>;
}

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array | null) =>
  bytes === null ? '(tombstone)' : new TextDecoder().decode(bytes);

/** Messages `key:seq` so a test can check order per key and which ones arrived. */
function sequence(keys: number, perKey: number, startAt = 0) {
  const messages: { key: string; value: Uint8Array }[] = [];
  for (let seq = startAt; seq < startAt + perKey; seq++) {
    for (let k = 0; k < keys; k++) messages.push({ key: `k${k}`, value: encode(`k${k}:${seq}`) });
  }
  return messages;
}

function seqOf(message: BusMessage) {
  return Number(decode(message.value).split(':')[1]);
}

/** Asserts that, for every key, the sequence numbers seen never go backwards. */
function expectOrderPerKey(received: BusMessage[]) {
  const lastSeen = new Map<string, number>();
  for (const message of received) {
    const seq = seqOf(message);
    const previous = lastSeen.get(message.key);
    if (previous !== undefined) expect(seq).toBeGreaterThanOrEqual(previous);
    lastSeen.set(message.key, seq);
  }
}

/**
 * The event bus contract: what the game relies on, proven for every adapter. Kafka's adapter runs
 * it against a real broker; the memory adapter must behave the same.
 */
export function describeEventBusContract(
  adapter: string,
  createFixture: () => Promise<BusFixture>,
) {
  describe(`EventBus contract: ${adapter}`, () => {
    let fixture: BusFixture;
    let subscriptions: Subscription[];
    const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

    beforeEach(async () => {
      fixture = await createFixture();
      subscriptions = [];
    });

    afterEach(async () => {
      await Promise.allSettled(subscriptions.map((s) => s.stop()));
      await fixture.cleanup();
    });

    async function subscribe(
      topic: string,
      groupId: string,
      handle: (message: BusMessage) => void | Promise<void>,
      fromBeginning = true,
    ) {
      const subscription = await fixture.bus.subscribe({
        groupId,
        topics: [topic],
        fromBeginning,
        handleBatch: async (batch) => {
          for (const message of batch) await handle(message);
        },
      });
      subscriptions.push(subscription);
      return subscription;
    }

    it('delivers a message with its key, value and headers', async () => {
      const topic = unique('delivery');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 3 }]);
      const received: BusMessage[] = [];
      await subscribe(topic, unique('group'), (m) => void received.push(m));
      await fixture.bus.publish(topic, [
        {
          key: 'tournament-1',
          value: encode('hello'),
          headers: { 'event-type': 'greeting', 'event-id': 'e-1' },
        },
      ]);
      await waitFor(() => received.length === 1, 'the message');
      const [message] = received;
      expect(message?.topic).toBe(topic);
      expect(message?.key).toBe('tournament-1');
      expect(decode(message!.value)).toBe('hello');
      expect(message?.headers).toEqual({ 'event-type': 'greeting', 'event-id': 'e-1' });
      expect(Number(message?.offset)).toBeGreaterThanOrEqual(0);
      expect(message?.timestamp).toBeGreaterThan(Date.now() - 60_000);
    });

    it("carries the publishing request's id in the request-id header and consumes under it", async () => {
      const topic = unique('request-id');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 1 }]);
      const seen: { header: string | undefined; current: string | undefined }[] = [];
      await subscribe(topic, unique('group'), (m) => {
        seen.push({ header: m.headers['request-id'], current: currentRequestId() });
      });
      await runWithRequestId('req-bus-1', () =>
        fixture.bus.publish(topic, [{ key: 'k', value: encode('during a request') }]),
      );
      // A batch mixing two requests' messages is handled outside both (handlers then wrap each
      // message in inMessageContext), so the second goes out only once the first was consumed.
      await waitFor(() => seen.length === 1, 'the first message');
      await fixture.bus.publish(topic, [{ key: 'k', value: encode('outside any request') }]);
      await waitFor(() => seen.length === 2, 'both messages');
      expect(seen).toEqual([
        { header: 'req-bus-1', current: 'req-bus-1' },
        { header: undefined, current: undefined },
      ]);
    });

    it('answers each publish with where every one of its messages was appended', async () => {
      const topic = unique('appended');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 4 }]);
      const received: BusMessage[] = [];
      await subscribe(topic, unique('group'), (m) => void received.push(m));
      // Publishes made together (on Kafka: combined in one send) over every partition.
      const publishes = Array.from({ length: 6 }, (_, p) =>
        Array.from({ length: 5 }, (_, m) => ({
          key: `tournament-${(p * 5 + m) % 7}`,
          value: encode(`${p}.${m}`),
        })),
      );
      const answers = await Promise.all(
        publishes.map((messages) => fixture.bus.publish(topic, messages)),
      );
      await waitFor(() => received.length === 30, 'every message');
      const where = new Map(received.map((m) => [decode(m.value), `${m.partition}@${m.offset}`]));
      const answered = publishes.flatMap((messages, p) =>
        messages.map((message, m) => {
          const appended = answers[p]![m]!;
          return [decode(message.value), `${appended.partition}@${appended.offset}`];
        }),
      );
      expect(answered).toEqual(answered.map(([value]) => [value, where.get(value!)]));
      expect(answers.map((answer) => answer.length)).toEqual([5, 5, 5, 5, 5, 5]);
    });

    it('tells which partition a key goes to and where each partition ends', async () => {
      const topic = unique('offsets');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 4 }]);
      const keys = ['tournament-a', 'tournament-b', 'tournament-c', 'tournament-d'];
      const partitions = await Promise.all(keys.map((key) => fixture.bus.partitionOf(topic, key)));
      for (const partition of partitions) expect(partition).toBeGreaterThanOrEqual(0);
      const before = await Promise.all(
        [0, 1, 2, 3].map((partition) => fixture.bus.endOffset(topic, partition)),
      );
      expect(before).toEqual(['0', '0', '0', '0']);
      const received: BusMessage[] = [];
      await subscribe(topic, unique('group'), (m) => void received.push(m));
      await fixture.bus.publish(
        topic,
        keys.flatMap((key) => [
          { key, value: encode(`${key}:1`) },
          { key, value: encode(`${key}:2`) },
        ]),
      );
      await waitFor(() => received.length === 8, 'every message');
      for (const [i, key] of keys.entries()) {
        // The partition told beforehand is the one the messages went to.
        const delivered = received.filter((message) => message.key === key);
        expect(delivered.map((message) => message.partition)).toEqual([
          partitions[i],
          partitions[i],
        ]);
      }
      for (const partition of [0, 1, 2, 3]) {
        const count = partitions.filter((p) => p === partition).length * 2;
        // One past the last message's offset: consuming everything before it is consuming all.
        expect(await fixture.bus.endOffset(topic, partition)).toBe(String(count));
      }
    });

    it('reads a stretch of one partition outside any group, in order, cut at its end', async () => {
      const topic = unique('range');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 2 }]);
      const partition = await fixture.bus.partitionOf(topic, 'k0');
      await fixture.bus.publish(topic, sequence(1, 10));
      const read = async (from: string, to: string) => {
        const seen: string[] = [];
        await fixture.bus.readRange(topic, partition, { from, to }, async (batch) => {
          for (const message of batch) {
            expect(message.partition).toBe(partition);
            seen.push(`${message.offset}=${decode(message.value)}`);
          }
        });
        return seen;
      };
      expect(await read('3', '7')).toEqual(['3=k0:3', '4=k0:4', '5=k0:5', '6=k0:6']);
      // Past the partition's end: what there is.
      expect(await read('8', '100')).toEqual(['8=k0:8', '9=k0:9']);
      expect(await read('5', '5')).toEqual([]);
      // Back to the start, after more were published: each read says where it starts.
      await fixture.bus.publish(topic, sequence(1, 2, 10));
      expect(await read('0', '2')).toEqual(['0=k0:0', '1=k0:1']);
      expect(await read('9', '12')).toEqual(['9=k0:9', '10=k0:10', '11=k0:11']);
      // The other partition has nothing.
      const other: BusMessage[] = [];
      await fixture.bus.readRange(topic, 1 - partition, { from: '0', to: '5' }, async (batch) => {
        other.push(...batch);
      });
      expect(other).toEqual([]);
      // No group was moved: a new group from the beginning gets everything.
      const received: BusMessage[] = [];
      await subscribe(topic, unique('group'), (m) => void received.push(m));
      await waitFor(() => received.length === 12, 'every message');
    });

    it('delivers every message of a key on a compacted topic to a subscribed group', async () => {
      const topic = unique('catalog');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 1, compacted: true }]);
      const received: string[] = [];
      await subscribe(topic, unique('group'), (m) => void received.push(decode(m.value)));
      await fixture.bus.publish(topic, [{ key: 'ad-1', value: encode('ad-1:1') }]);
      await waitFor(() => received.length === 1, 'the first version');
      await fixture.bus.publish(topic, [{ key: 'ad-1', value: encode('ad-1:2') }]);
      await waitFor(() => received.length === 2, 'the second version of the same key');
      expect(received).toEqual(['ad-1:1', 'ad-1:2']);
    });

    it('carries a tombstone (null value) with its headers on a compacted topic', async () => {
      const topic = unique('tombstone');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 1, compacted: true }]);
      const received: BusMessage[] = [];
      await subscribe(topic, unique('group'), (m) => void received.push(m));
      await fixture.bus.publish(topic, [
        { key: 'ad-1', value: encode('ad-1:1') },
        { key: 'ad-1', value: null, headers: { 'event-type': 'deleted' } },
      ]);
      await waitFor(() => received.length >= 1 && received.at(-1)?.value === null, 'the tombstone');
      expect(received.at(-1)).toMatchObject({ key: 'ad-1', headers: { 'event-type': 'deleted' } });
    });

    it('keeps the order of messages with the same key across partitions', async () => {
      const topic = unique('order');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 3 }]);
      const received: BusMessage[] = [];
      await subscribe(topic, unique('group'), (m) => void received.push(m));
      const messages = sequence(6, 20);
      await fixture.bus.publish(topic, messages.slice(0, 60));
      await fixture.bus.publish(topic, messages.slice(60));
      await waitFor(() => received.length >= messages.length, 'all 120 messages');
      expect(received).toHaveLength(messages.length);
      expectOrderPerKey(received);
      const partitionsUsed = new Set(received.map((m) => m.partition));
      expect(partitionsUsed.size).toBeGreaterThan(1);
      for (const key of ['k0', 'k1', 'k2', 'k3', 'k4', 'k5']) {
        expect(new Set(received.filter((m) => m.key === key).map((m) => m.partition)).size).toBe(1);
      }
    });

    it('gives every consumer group every message', async () => {
      const topic = unique('fanout');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 3 }]);
      const analytics: BusMessage[] = [];
      const notifications: BusMessage[] = [];
      await subscribe(topic, unique('analytics'), (m) => void analytics.push(m));
      await subscribe(topic, unique('notification'), (m) => void notifications.push(m));
      const messages = sequence(4, 10);
      await fixture.bus.publish(topic, messages);
      await waitFor(
        () => analytics.length >= 40 && notifications.length >= 40,
        'both groups to receive all 40 messages',
      );
      const texts = (list: BusMessage[]) => list.map((m) => decode(m.value)).sort();
      const published = messages.map((m) => decode(m.value)).sort();
      expect(texts(analytics)).toEqual(published);
      expect(texts(notifications)).toEqual(published);
    });

    it('splits partitions between the members of one group, each message to one member', async () => {
      const topic = unique('shared');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 4 }]);
      const groupId = unique('engine');
      const first: BusMessage[] = [];
      const second: BusMessage[] = [];
      await subscribe(topic, groupId, (m) => void first.push(m));
      await subscribe(topic, groupId, (m) => void second.push(m));
      // Both members must hold partitions before publishing, or one takes everything.
      const messages = sequence(12, 5);
      await fixture.bus.publish(topic, messages);
      await waitFor(() => first.length + second.length >= 60, 'all 60 messages in the group');
      expect(first.length).toBeGreaterThan(0);
      expect(second.length).toBeGreaterThan(0);
      const all = [...first, ...second].map((m) => decode(m.value)).sort();
      expect(all).toEqual(messages.map((m) => decode(m.value)).sort());
      const partitionsOf = (list: BusMessage[]) => new Set(list.map((m) => m.partition));
      for (const partition of partitionsOf(first)) {
        expect(partitionsOf(second).has(partition)).toBe(false);
      }
    });

    it('delivers a batch again when its handler throws', async () => {
      const topic = unique('retry');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 1 }]);
      let attempts = 0;
      const processed: string[] = [];
      await subscribe(topic, unique('group'), (m) => {
        attempts++;
        if (attempts <= 2) throw new Error('transient failure');
        processed.push(decode(m.value));
      });
      await fixture.bus.publish(topic, [{ key: 'a', value: encode('a:1') }]);
      await waitFor(() => processed.length === 1, 'the message after two failures');
      expect(attempts).toBe(3);
      expect(processed).toEqual(['a:1']);
    });

    it('redelivers to the next member what a consumer received but died before committing, in order per key', async () => {
      const topic = unique('crash');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 3 }]);
      const groupId = unique('engine');

      const committedByFirst: BusMessage[] = [];
      let dead = false;
      const seenWhileDying: BusMessage[] = [];
      const first = await subscribe(topic, groupId, (m) => {
        if (dead) {
          seenWhileDying.push(m);
          throw new Error('consumer process died before committing');
        }
        committedByFirst.push(m);
      });
      const before = sequence(4, 3, 0);
      await fixture.bus.publish(topic, before);
      await waitFor(() => committedByFirst.length === 12, 'the first 12 messages to be handled');

      dead = true;
      const after = sequence(4, 5, 100);
      await fixture.bus.publish(topic, after);
      await waitFor(() => seenWhileDying.length > 0, 'the dying consumer to receive a message');
      await first.stop();

      const second: BusMessage[] = [];
      await subscribe(topic, groupId, (m) => void second.push(m));
      await waitFor(() => second.length >= after.length, 'the 20 uncommitted messages');
      // The marker: one later message per key (so on each partition), published after all the
      // rest: once the four are in, everything that will be delivered again is.
      const markers = sequence(4, 1, 999);
      await fixture.bus.publish(topic, markers);
      const markerTexts = markers.map((m) => decode(m.value));
      await waitFor(
        () => markerTexts.every((text) => second.some((m) => decode(m.value) === text)),
        'the marker on every key',
      );

      const texts = second.map((m) => decode(m.value)).filter((t) => !markerTexts.includes(t));
      for (const message of seenWhileDying) expect(texts).toContain(decode(message.value));
      expect([...new Set(texts)].sort()).toEqual(after.map((m) => decode(m.value)).sort());
      // Messages committed before the crash are not delivered again.
      for (const message of before) expect(texts).not.toContain(decode(message.value));
      expectOrderPerKey(second);
    });

    it("starts each partition at the consumer's stored offset, not the group's committed one", async () => {
      const topic = unique('stored');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 1 }]);
      const groupId = unique('group');
      const firstRun: BusMessage[] = [];
      const consumer = await subscribe(topic, groupId, (m) => void firstRun.push(m));
      await fixture.bus.publish(topic, sequence(1, 6, 0));
      await waitFor(() => firstRun.length === 6, 'the six messages');
      await consumer.stop();

      // The consumer's own store says only k0:0..k0:1 took effect (it lost the rest), while the
      // group committed all six: the member starts where the store says.
      const stored = new Map([[0, '2']]);
      const again: string[] = [];
      subscriptions.push(
        await fixture.bus.subscribe({
          groupId,
          topics: [topic],
          fromBeginning: true,
          storedOffsets: { read: async (_topic, partition) => stored.get(partition) },
          handleBatch: async (batch) => {
            for (const message of batch) {
              again.push(decode(message.value));
              stored.set(message.partition, String(Number(message.offset) + 1));
            }
          },
        }),
      );
      await waitFor(() => again.length >= 4, 'the four messages after the stored offset');
      await fixture.bus.publish(topic, [{ key: 'k0', value: encode('k0:6') }]);
      await waitFor(() => again.length >= 5, 'the next message');
      expect(again).toEqual(['k0:2', 'k0:3', 'k0:4', 'k0:5', 'k0:6']);
    });

    it('goes back to a stored offset that fell behind while the partition was idle', async () => {
      const topic = unique('stored-lost');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 1 }]);
      const stored = new Map<number, string>();
      const received: string[] = [];
      subscriptions.push(
        await fixture.bus.subscribe({
          groupId: unique('group'),
          topics: [topic],
          fromBeginning: true,
          storedOffsets: {
            read: async (_topic, partition) => stored.get(partition),
            recheckEveryMs: 100,
          },
          handleBatch: async (batch) => {
            for (const message of batch) {
              received.push(decode(message.value));
              stored.set(message.partition, String(Number(message.offset) + 1));
            }
          },
        }),
      );
      await fixture.bus.publish(topic, sequence(1, 5, 0));
      await waitFor(() => received.length === 5, 'the five messages');
      // The store loses the effects of the last three (a failover to a replica behind it).
      stored.set(0, '2');
      await waitFor(() => received.length >= 8, 'the three lost messages again');
      expect(received).toEqual(['k0:0', 'k0:1', 'k0:2', 'k0:3', 'k0:4', 'k0:2', 'k0:3', 'k0:4']);
    });

    it('goes back to a stored offset that fell behind on a partition it was given but has not consumed', async () => {
      const topic = unique('stored-lost-idle');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 1 }]);
      await fixture.bus.publish(topic, sequence(1, 5, 0));
      // Everything was applied by an earlier member: the store says 5.
      const stored = new Map([[0, '5']]);
      const received: string[] = [];
      let reads = 0;
      subscriptions.push(
        await fixture.bus.subscribe({
          groupId: unique('group'),
          topics: [topic],
          fromBeginning: true,
          storedOffsets: {
            read: async (_topic, partition) => {
              reads += 1;
              return stored.get(partition);
            },
            recheckEveryMs: 100,
          },
          handleBatch: async (batch) => {
            for (const message of batch) {
              received.push(decode(message.value));
              stored.set(message.partition, String(Number(message.offset) + 1));
            }
          },
        }),
      );
      // The member's own progress, not a pause: it has the partition (it read the stored offset)
      // and has looked at it again, idle, twice since.
      await waitFor(() => reads >= 3, 'the stored offset read, then rechecked twice');
      expect(received).toEqual([]);
      // The store fails over to a replica that has only the first two applied.
      stored.set(0, '2');
      await waitFor(() => received.length >= 3, 'the three lost messages');
      expect(received).toEqual(['k0:2', 'k0:3', 'k0:4']);
    });

    it('starts from the oldest message, once, when the stored offset is past the end', async () => {
      const topic = unique('stored-past-end');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 1 }]);
      await fixture.bus.publish(topic, sequence(1, 3, 0));
      const received: string[] = [];
      subscriptions.push(
        await fixture.bus.subscribe({
          groupId: unique('group'),
          topics: [topic],
          fromBeginning: true,
          // A store kept from a topic since made anew: an offset this partition never reaches.
          storedOffsets: { read: async () => '1000', recheckEveryMs: 100 },
          handleBatch: async (batch) => {
            for (const message of batch) received.push(decode(message.value));
          },
        }),
      );
      await waitFor(() => received.length >= 3, 'the three messages');
      await fixture.bus.publish(topic, [{ key: 'k0', value: encode('k0:3') }]);
      await waitFor(() => received.length >= 4, 'the next message');
      await fixture.bus.publish(topic, [{ key: 'k0', value: encode('k0:4') }]);
      await waitFor(() => received.length >= 5, 'the one after');
      expect(received).toEqual(['k0:0', 'k0:1', 'k0:2', 'k0:3', 'k0:4']);
    });

    it('resumes a group from its committed position and starts a new group where asked', async () => {
      const topic = unique('resume');
      await fixture.bus.ensureTopics([{ name: topic, partitions: 2 }]);
      const groupId = unique('group');
      const firstRun: BusMessage[] = [];
      const consumer = await subscribe(topic, groupId, (m) => void firstRun.push(m));
      await fixture.bus.publish(topic, sequence(2, 3, 0));
      await waitFor(() => firstRun.length === 6, 'the first six messages');
      await consumer.stop();

      await fixture.bus.publish(topic, sequence(2, 2, 10));
      const secondRun: BusMessage[] = [];
      await subscribe(topic, groupId, (m) => void secondRun.push(m));
      const latestOnly: BusMessage[] = [];
      await subscribe(topic, unique('late'), (m) => void latestOnly.push(m), false);
      const fromStart: BusMessage[] = [];
      await subscribe(topic, unique('replay'), (m) => void fromStart.push(m), true);
      await fixture.bus.publish(topic, [{ key: 'k0', value: encode('k0:99') }]);

      await waitFor(() => secondRun.length >= 5 && fromStart.length >= 11, 'the resumed groups');
      await waitFor(() => latestOnly.length >= 1, 'the new message for the late group');
      expect(secondRun.map((m) => decode(m.value)).sort()).toEqual(
        ['k0:10', 'k0:11', 'k0:99', 'k1:10', 'k1:11'].sort(),
      );
      expect(latestOnly.map((m) => decode(m.value))).toEqual(['k0:99']);
      expect(fromStart).toHaveLength(11);
    });
  });
}
