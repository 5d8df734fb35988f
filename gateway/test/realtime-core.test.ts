import { createLogger, createMetricsRegistry, type Registry } from '@underdog/kit';
import { graphqlWsEncoder, wsEncoder } from '../src/realtime/core/encoders';
import { encodedMessages, textFrames } from '../src/realtime/core/frames';
import { Subscriber, type Channel, type ProtocolEncoder } from '../src/realtime/core/channels';
import { RealtimeCore, maxHeldMessages } from '../src/realtime/core/realtime-core';
import { RealtimeMetrics } from '../src/realtime/metrics';
import { defaultRealtimeLimits, type RealtimeLimits } from '../src/realtime/ports';
import type { GameEventView } from '../src/realtime/views';
import { FakeSocket, unframe } from './realtime-core-support';

const logger = createLogger({ service: 'test', level: 'silent' });

/** A channel of one tournament whose event is its type, as one message. */
class TypeChannel implements Channel {
  readonly subscribers = new Set<Subscriber>();
  encodings = 0;

  constructor(
    readonly key: string,
    readonly tournamentId: string | null,
    readonly encoder: ProtocolEncoder = wsEncoder,
  ) {}

  gameEvent(view: GameEventView) {
    this.encodings += 1;
    return encodedMessages({ type: view.type, tournamentId: view.tournamentId });
  }
}

const voteTotal = (tournamentId: string, totalVotes: number) =>
  ({
    type: 'VoteTotal',
    tournamentId,
    gameId: 'g',
    occurredAt: '',
    roundNumber: 1,
    totalVotes,
  }) as unknown as GameEventView;
const votingEnded = (tournamentId: string) =>
  ({
    type: 'VotingEnded',
    tournamentId,
    gameId: 'g',
    occurredAt: '',
    roundNumber: 1,
    totalVotes: 1,
  }) as unknown as GameEventView;

describe('the real-time core', () => {
  let registry: Registry;
  let core: RealtimeCore;
  const start = (limits: Partial<RealtimeLimits> = {}) => {
    registry = createMetricsRegistry('test');
    core = new RealtimeCore({
      logger,
      limits: { ...defaultRealtimeLimits, voteTotalSpreadMs: 0, ...limits },
      metrics: new RealtimeMetrics(registry),
    });
  };
  afterEach(() => {
    core.close();
    jest.useRealTimers();
  });

  const subscribe = (
    socket: FakeSocket,
    channel: Channel,
    protocol: 'ws' | 'graphql-ws' = 'ws',
  ) => {
    const subscriber = new Subscriber(core.open(socket, protocol), channel);
    core.join(subscriber);
    return subscriber;
  };
  const metric = async (name: string) => (await registry.getSingleMetric(name)!.get()).values;

  it('keeps one registry per tournament: an event reaches its channels, once encoded, and no one else', async () => {
    start();
    const t1 = new TypeChannel('a', 't-1');
    const t2 = new TypeChannel('b', 't-2');
    const watchers = [new FakeSocket(), new FakeSocket(), new FakeSocket()];
    for (const socket of watchers)
      subscribe(
        socket,
        core.channel('a', () => t1),
      );
    const other = new FakeSocket();
    subscribe(
      other,
      core.channel('b', () => t2),
    );
    expect(core.subscriberCount('t-1')).toBe(3);
    expect(core.channelCount()).toBe(2);

    await core.gameEvent(votingEnded('t-1'));

    expect(t1.encodings).toBe(1);
    expect(t2.encodings).toBe(0);
    // Framed once: the very same buffer is written to every socket.
    const first = watchers[0]!.written[0];
    for (const socket of watchers) {
      expect(socket.written).toHaveLength(1);
      expect(socket.written[0]).toBe(first);
      expect(socket.texts()).toEqual(['{"type":"VotingEnded","tournamentId":"t-1"}']);
    }
    expect(other.written).toHaveLength(0);
  });

  it('forgets a channel with its last subscriber, and a closed socket with its subscriptions', async () => {
    start();
    const socket = new FakeSocket();
    const subscriber = subscribe(
      socket,
      core.channel('a', () => new TypeChannel('a', 't-1')),
    );
    const closing = new FakeSocket();
    subscribe(
      closing,
      core.channel('a', () => new TypeChannel('a', 't-1')),
    );
    expect(core.subscriberCount('t-1')).toBe(2);
    expect(core.connectionCount('ws')).toBe(2);
    expect(await metric('underdog_websocket_connections')).toContainEqual(
      expect.objectContaining({ labels: { protocol: 'ws' }, value: 2 }),
    );

    closing.emit('close');
    expect(core.subscriberCount('t-1')).toBe(1);
    expect(core.connectionCount()).toBe(1);
    core.leave(subscriber);
    expect(subscriber.active).toBe(false);
    expect(core.channelCount()).toBe(0);

    await core.gameEvent(votingEnded('t-1'));
    expect(socket.written).toHaveLength(0);
  });

  it('holds events while the snapshot loads, then sends the snapshot first and the held ones after, in one write', async () => {
    start();
    const socket = new FakeSocket();
    const subscriber = subscribe(socket, new TypeChannel('a', 't-1'));
    core.hold(subscriber);
    await core.gameEvent(voteTotal('t-1', 1));
    await core.gameEvent(votingEnded('t-1'));
    expect(socket.written).toHaveLength(0);

    core.release(subscriber, encodedMessages({ type: 'snapshot' }));

    expect(socket.written).toHaveLength(1);
    expect(socket.texts()).toEqual([
      '{"type":"snapshot"}',
      '{"type":"VoteTotal","tournamentId":"t-1"}',
      '{"type":"VotingEnded","tournamentId":"t-1"}',
    ]);
  });

  it('drops a subscriber whose snapshot never comes once too much is held', async () => {
    start();
    const stuck = new FakeSocket();
    const subscriber = subscribe(stuck, new TypeChannel('a', 't-1'));
    core.hold(subscriber);
    for (let i = 0; i <= maxHeldMessages; i += 1) await core.gameEvent(votingEnded('t-1'));

    expect(stuck.terminated).toBe(true);
    expect(subscriber.active).toBe(false);
    expect(stuck.written).toHaveLength(0);
    expect(await metric('underdog_websocket_slow_consumers_dropped_total')).toContainEqual(
      expect.objectContaining({ labels: { protocol: 'ws' }, value: 1 }),
    );
  });

  it('drops a slow reader (unsent data past the bound) of either protocol; the others get the event', async () => {
    start({ maxBufferedBytes: 1000 });
    const channel = new TypeChannel('a', 't-1');
    const reader = new FakeSocket();
    subscribe(reader, channel);
    const slow = new FakeSocket();
    slow.bufferedAmount = 1001;
    subscribe(slow, channel, 'graphql-ws');

    await core.gameEvent(votingEnded('t-1'));

    expect(reader.written).toHaveLength(1);
    expect(slow.written).toHaveLength(0);
    expect(slow.terminated).toBe(true);
    expect(core.subscriberCount('t-1')).toBe(1);
    expect(await metric('underdog_websocket_slow_consumers_dropped_total')).toContainEqual(
      expect.objectContaining({ labels: { protocol: 'graphql-ws' }, value: 1 }),
    );
  });

  it('pings every socket of both protocols on one timer and terminates one that did not pong since the previous beat', () => {
    jest.useFakeTimers();
    start({ heartbeatMs: 1000 });
    const timers = jest.getTimerCount();
    const answering = new FakeSocket();
    const silent = new FakeSocket();
    core.open(answering, 'ws');
    core.open(silent, 'graphql-ws');
    // No timer per socket: the core's one heartbeat serves them all.
    expect(jest.getTimerCount()).toBe(timers);

    jest.advanceTimersByTime(1000);
    expect([answering.pings, silent.pings]).toEqual([1, 1]);
    answering.emit('pong');

    jest.advanceTimersByTime(1000);
    expect(answering.pings).toBe(2);
    expect(answering.terminated).toBe(false);
    expect(silent.terminated).toBe(true);
    expect(core.connectionCount()).toBe(1);
  });

  it('spreads a beat over a fifth of the interval, not all sockets in one turn', () => {
    jest.useFakeTimers();
    start({ heartbeatMs: 10_000, fanOutSliceSize: 500 });
    const sockets = Array.from({ length: 400 }, () => new FakeSocket());
    for (const socket of sockets) core.open(socket, 'ws');

    jest.advanceTimersByTime(10_000);
    const pinged = () => sockets.filter((socket) => socket.pings > 0).length;
    expect(pinged()).toBeLessThan(400);
    jest.advanceTimersByTime(2_000);
    expect(pinged()).toBe(400);
  });

  it('gives a graphql-ws subscriber the channel payload in its own envelope, the payload copied, not serialised again', async () => {
    start();
    const channel = new TypeChannel('op', 't-1', graphqlWsEncoder);
    const sockets = ['1', 'sub-b', 'odd"id'].map((id) => {
      const socket = new FakeSocket();
      const subscriber = new Subscriber(core.open(socket, 'graphql-ws'), channel, id);
      core.join(subscriber);
      return socket;
    });
    const stringify = jest.spyOn(JSON, 'stringify');
    await core.gameEvent(votingEnded('t-1'));
    // The payload once for all three; only an id that needs escaping is stringified, alone.
    const [payloads, ids] = [0, 1].map((strings) =>
      stringify.mock.calls.filter(([value]) => Number(typeof value === 'string') === strings),
    );
    expect(payloads).toHaveLength(1);
    expect(ids).toEqual([['odd"id']]);
    stringify.mockRestore();

    expect(sockets.map((socket) => socket.texts())).toEqual([
      ['{"id":"1","type":"next","payload":{"type":"VotingEnded","tournamentId":"t-1"}}'],
      ['{"id":"sub-b","type":"next","payload":{"type":"VotingEnded","tournamentId":"t-1"}}'],
      ['{"id":"odd\\"id","type":"next","payload":{"type":"VotingEnded","tournamentId":"t-1"}}'],
    ]);
  });

  it('frames texts of every length class as ws reads them', () => {
    for (const length of [0, 125, 126, 65_535, 65_536, 70_000]) {
      const text = 'x'.repeat(length);
      expect(unframe(textFrames([Buffer.from(text), Buffer.from('ok')]))).toEqual([text, 'ok']);
    }
  });
});
