import { createLogger } from '@underdog/kit';
import { waitFor } from '@underdog/test-support';
import { createMemoryBus, createOutboxRelay, type BusMessage, type EventBus } from '../src';

/*
 * The one outbox relay, on the in-memory bus with a fake store: a map of items whose value is
 * true while the item is pending (the marker a change writes with itself).
 */

const topic = 'test.outbox';
const silent = createLogger({ service: 'test', level: 'silent' });

function fakeStore() {
  const pending = new Map<string, boolean>();
  /** What happened, in order ("read pending": a pass began), for tests that add their own steps. */
  const steps: string[] = [];
  return {
    pending,
    steps,
    write: (id: string) => void pending.set(id, true),
    pendingIds: async () => {
      steps.push('read pending');
      return [...pending].filter(([, marked]) => marked).map(([id]) => id);
    },
    markDone: async (id: string) => void pending.set(id, false),
  };
}

/** A bus whose publish fails while `down`, and can be held open to see a pass in flight. */
function controllableBus(inner: EventBus) {
  const state = { down: false, hold: undefined as Promise<void> | undefined, publishing: 0 };
  const publish = async (id: string) => {
    state.publishing += 1;
    try {
      await state.hold;
      if (state.down) throw new Error('broker unreachable');
      await inner.publish(topic, [{ key: id, value: new TextEncoder().encode(id), headers: {} }]);
    } finally {
      state.publishing -= 1;
    }
  };
  return { state, publish };
}

describe('createOutboxRelay (the one outbox mechanism)', () => {
  let bus: ReturnType<typeof createMemoryBus>;
  let published: string[];
  let stopConsumer: () => Promise<void>;

  beforeEach(async () => {
    bus = createMemoryBus();
    await bus.ensureTopics([{ name: topic, partitions: 1 }]);
    published = [];
    const subscription = await bus.subscribe({
      groupId: 'test',
      topics: [topic],
      fromBeginning: true,
      handleBatch: async (batch: BusMessage[]) => {
        for (const message of batch) published.push(message.key ?? '');
      },
    });
    stopConsumer = () => subscription.stop();
  });
  afterEach(async () => {
    await stopConsumer();
    await bus.close();
  });

  function relayOn(intervalMs = 60_000) {
    const store = fakeStore();
    const broker = controllableBus(bus);
    const relay = createOutboxRelay<string>({
      name: 'test-outbox',
      what: 'test event',
      intervalMs,
      pending: store.pendingIds,
      publish: broker.publish,
      markDone: store.markDone,
      logger: silent,
    });
    return { store, broker, relay };
  }

  it('publishes right after the write and marks the item done', async () => {
    const { store, relay } = relayOn();
    store.write('a');
    expect(await relay.publishNow('a')).toBe(true);
    await waitFor(() => published.length === 1, 'the event');
    expect(published).toEqual(['a']);
    expect(await store.pendingIds()).toEqual([]);
  });

  it('leaves a failed publish pending (never throwing), and the sweep publishes it once', async () => {
    const { store, broker, relay } = relayOn();
    broker.state.down = true;
    store.write('a');
    expect(await relay.publishNow('a')).toBe(false);
    expect(await store.pendingIds()).toEqual(['a']);
    expect(await relay.sweep()).toBe(0);
    expect(await store.pendingIds()).toEqual(['a']);

    broker.state.down = false;
    expect(await relay.sweep()).toBe(1);
    await waitFor(() => published.length === 1, 'the swept event');
    expect(await relay.sweep()).toBe(0);
    expect(published).toEqual(['a']);
  });

  it('keeps an item pending when marking it done fails, so the next sweep publishes it again', async () => {
    const store = fakeStore();
    let markFails = true;
    const relay = createOutboxRelay<string>({
      name: 'test-outbox',
      what: 'test event',
      intervalMs: 60_000,
      pending: store.pendingIds,
      publish: async (id) => {
        await bus.publish(topic, [{ key: id, value: new Uint8Array([1]), headers: {} }]);
      },
      markDone: async (id) => {
        if (markFails) throw new Error('store unreachable');
        await store.markDone(id);
      },
      logger: silent,
    });
    store.write('a');
    expect(await relay.publishNow('a')).toBe(true);
    expect(await store.pendingIds()).toEqual(['a']);
    markFails = false;
    expect(await relay.sweep()).toBe(1);
    await waitFor(() => published.length === 2, 'the repeat');
    expect(await store.pendingIds()).toEqual([]);
  });

  it('sweeps at start and then every interval', async () => {
    const { store, broker, relay } = relayOn(20);
    broker.state.down = true;
    store.write('a');
    await relay.publishNow('a');
    broker.state.down = false;
    await relay.component.start?.();
    try {
      await waitFor(() => published.includes('a'), 'the sweep at start');
      broker.state.down = true;
      store.write('b');
      await relay.publishNow('b');
      broker.state.down = false;
      await waitFor(() => published.includes('b'), 'a later sweep');
    } finally {
      await relay.component.stop?.();
    }
  });

  it('runs one pass at a time: a sweep during a pass waits for it, then makes its own', async () => {
    const { store, broker, relay } = relayOn();
    const { steps } = store;
    let release!: () => void;
    broker.state.hold = new Promise((resolve) => (release = resolve));
    store.write('a');
    const first = relay.sweep();
    await waitFor(() => broker.state.publishing === 1, 'the first pass publishing');
    store.write('b');
    const second = relay.sweep();
    // The marker: everything the relay's fakes do is in memory, so once the second sweep's
    // promise chain has run as far as it can (a turn of the event loop), a pass it began would
    // have read the pending items. Then the first pass is released.
    await new Promise((resolve) => setImmediate(resolve));
    steps.push('first pass released');
    release();
    expect(await first).toBe(1);
    expect(await second).toBe(1);
    // The second pass read the pending items only after the first was over.
    expect(steps).toEqual(['read pending', 'first pass released', 'read pending']);
    await waitFor(() => published.length === 2, 'both events');
    expect(published).toEqual(['a', 'b']);
  });

  it('stops only after the running pass is over', async () => {
    const { store, broker, relay } = relayOn();
    let release!: () => void;
    broker.state.hold = new Promise((resolve) => (release = resolve));
    store.write('a');
    await relay.component.start?.();
    await waitFor(() => broker.state.publishing === 1, 'the pass at start publishing');
    const steps: string[] = [];
    const stopping = relay.component.stop!().then(() => steps.push('stopped'));
    // A turn of the event loop: a stop that did not wait for the pass (all in memory) is over.
    await new Promise((resolve) => setImmediate(resolve));
    steps.push('pass released');
    release();
    await stopping;
    expect(steps).toEqual(['pass released', 'stopped']);
    expect(await store.pendingIds()).toEqual([]);
  });

  it('survives a store that cannot list its pending items', async () => {
    const relay = createOutboxRelay<string>({
      name: 'test-outbox',
      what: 'test event',
      intervalMs: 60_000,
      pending: async () => {
        throw new Error('store unreachable');
      },
      publish: async () => undefined,
      markDone: async () => undefined,
      logger: silent,
    });
    expect(await relay.sweep()).toBe(0);
  });
});
