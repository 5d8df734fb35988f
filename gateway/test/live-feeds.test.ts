import { createLogger, createMetricsRegistry } from '@underdog/kit';
import { topics } from '@underdog/platform';
import { execute, parse } from 'graphql';
import { LiveFeeds } from '../src/graphql/live/feeds';
import type { LiveSubscriptionContext } from '../src/graphql/live/live-operations';
import { createSchema } from '../src/graphql/schema';
import { RealtimeHub, type RealtimeListener } from '../src/realtime/hub';
import { RealtimeMetrics } from '../src/realtime/metrics';
import { defaultRealtimeLimits } from '../src/realtime/ports';
import { toGameEventView, type GameEventView } from '../src/realtime/views';
import {
  encodeGameEvent,
  encodeLifecycleEvent,
  lifecycleEvent,
  t0,
  wholeGame,
} from './game-events';
import { RealtimeCore } from '../src/realtime/core/realtime-core';
import { FakeSocket } from './realtime-core-support';
import type { BusMessage } from '@underdog/bus';

const logger = createLogger({ service: 'test', level: 'silent' });

describe('LiveFeeds (graphql-ws subscriptions fed by the real-time core)', () => {
  const schema = createSchema();
  let core: RealtimeCore;
  let feeds: LiveFeeds;
  beforeEach(() => {
    core = new RealtimeCore({
      logger,
      limits: defaultRealtimeLimits,
      metrics: new RealtimeMetrics(createMetricsRegistry('test')),
    });
    feeds = new LiveFeeds({ schema, logger, core });
  });
  afterEach(() => core.close());

  const document = parse(
    'subscription ($id: ID!) { gameEvents(tournamentId: $id) { __typename ... on VoteTotal { totalVotes } } }',
  );
  const subscribe = async (tournamentId: string, subscriptionId: string) => {
    const socket = new FakeSocket();
    const context: LiveSubscriptionContext = {
      subscriptionId,
      socket: {
        connection: core.open(socket, 'graphql-ws'),
        currentOrigin: () => Promise.reject(new Error('no snapshot without a game')),
      },
    };
    const feed = await feeds.subscribe({
      schema,
      document,
      variableValues: { id: tournamentId },
      contextValue: context,
    });
    if (!(Symbol.asyncIterator in feed)) throw new Error(JSON.stringify(feed));
    return { socket, feed };
  };

  it('executes and serialises an event once per operation; each socket gets it in its own envelope', async () => {
    const subscribers = await Promise.all(['1', '2', 'three'].map((id) => subscribe('t-1', id)));
    const other = await subscribe('t-2', '1');
    expect(feeds.groupCount()).toBe(2);
    const view = toGameEventView(wholeGame('t-1')[3]!, t0) as GameEventView;
    const serialised = jest.spyOn(feeds, 'encoded');

    await core.gameEvent(view);

    expect(serialised).toHaveBeenCalledTimes(1);
    const expected = await execute({
      schema,
      document,
      variableValues: { id: 't-1' },
      rootValue: { gameEvents: view },
    });
    expect(expected.data).toEqual({ gameEvents: { __typename: 'VoteTotal', totalVotes: 2 } });
    for (const [i, id] of ['1', '2', 'three'].entries()) {
      expect(subscribers[i]!.socket.texts()).toEqual([
        JSON.stringify({ id, type: 'next', payload: expected }),
      ]);
    }
    expect(other.socket.written).toHaveLength(0);

    // Its iterator only says when it is over: the client's complete (return) lets it go.
    const ending = subscribers[0]!.feed.next();
    for (const { feed } of [...subscribers, other]) await feed.return?.();
    await expect(ending).resolves.toEqual({ value: undefined, done: true });
    expect(feeds.groupCount()).toBe(0);
  });

  it('refuses a subscription with an empty tournament id', async () => {
    const answer = await feeds.subscribe({
      schema,
      document,
      variableValues: { id: ' ' },
      contextValue: { subscriptionId: '1', socket: {} } as LiveSubscriptionContext,
    });
    expect(answer).toMatchObject({ errors: [{ message: 'tournamentId is invalid' }] });
  });
});

describe('RealtimeHub', () => {
  it('hands a redelivered event to the listeners only once', async () => {
    const seen: string[] = [];
    const hub = new RealtimeHub({
      bus: undefined as never,
      logger,
      instanceId: 'a',
      listTournaments: () => Promise.resolve([]),
    });
    const listener: RealtimeListener = {
      gameEvent: (view) => void seen.push(view.type),
      tournamentChange: () => undefined,
    };
    hub.addListener(listener);
    expect(hub.groupId).toBe('gateway-a');
    const encoded = encodeGameEvent(wholeGame('t-1')[0]!);
    const message: BusMessage = {
      topic: topics.gameEvents.name,
      partition: 0,
      offset: '0',
      timestamp: 0,
      ...encoded,
    };
    await hub.handleBatch([message]);
    await hub.handleBatch([message]);
    await hub.handleBatch([{ ...message, value: new Uint8Array([0xff, 0xff, 0xff]), headers: {} }]);
    expect(seen).toEqual(['GameStarted']);
  });

  it('hands game events on while the tournament list after a change is still being read', async () => {
    const seen: string[] = [];
    let answerList: (list: []) => void = () => undefined;
    const hub = new RealtimeHub({
      bus: undefined as never,
      logger,
      instanceId: 'b',
      // The tournament service away: the read waits (for its deadline, in the gateway).
      listTournaments: () => new Promise((resolve) => (answerList = resolve)),
    });
    hub.addListener({
      gameEvent: (view) => void seen.push(view.type),
      tournamentChange: (change) => void seen.push(`tournament ${change.kind}`),
    });
    const message = (encoded: ReturnType<typeof encodeGameEvent>, topic: string, offset: string) =>
      ({ topic, partition: 0, offset, timestamp: 0, ...encoded }) satisfies BusMessage;
    const [started, advertisement] = wholeGame('t-1');
    await hub.handleBatch([
      message(
        encodeLifecycleEvent(lifecycleEvent('t-1', 'live')),
        topics.tournamentLifecycle.name,
        '0',
      ),
      message(encodeGameEvent(started!), topics.gameEvents.name, '1'),
    ]);
    await hub.handleBatch([message(encodeGameEvent(advertisement!), topics.gameEvents.name, '2')]);
    expect(seen).toEqual(['GameStarted', 'AdvertisementStarted']);

    answerList([]);
    await hub.changesDelivered();
    expect(seen.slice(2)).toEqual(['tournament live']);
  });
});
