import { createLogger, createMetricsRegistry } from '@underdog/kit';
import { topics } from '@underdog/platform';
import { parse, type ExecutionResult } from 'graphql';
import { LiveFeeds } from '../src/graphql/live/feeds';
import { createSchema } from '../src/graphql/schema';
import { RealtimeHub, type RealtimeListener } from '../src/realtime/hub';
import { RealtimeMetrics } from '../src/realtime/metrics';
import { defaultRealtimeLimits } from '../src/realtime/ports';
import { toGameEventView, type GameEventView } from '../src/realtime/views';
import { encodeGameEvent, t0, wholeGame } from './game-events';
import type { GraphQLContext } from '../src/graphql/context';
import type { BusMessage } from '@underdog/bus';

const logger = createLogger({ service: 'test', level: 'silent' });

describe('LiveFeeds (graphql-ws subscriptions fed by the fan-out)', () => {
  const schema = createSchema();
  const feeds = new LiveFeeds({
    schema,
    logger,
    limits: defaultRealtimeLimits,
    metrics: new RealtimeMetrics(createMetricsRegistry('test')),
  });
  const document = parse(
    'subscription ($id: ID!) { gameEvents(tournamentId: $id) { __typename ... on VoteTotal { totalVotes } } }',
  );
  const subscribe = async (id: string) => {
    const feed = await feeds.subscribe({
      schema,
      document,
      variableValues: { id },
      contextValue: {} as GraphQLContext,
    });
    if (!(Symbol.asyncIterator in feed)) throw new Error(JSON.stringify(feed));
    return feed;
  };

  it('executes an event once and hands the same result to every subscriber of the operation', async () => {
    const subscribers = await Promise.all([subscribe('t-1'), subscribe('t-1'), subscribe('t-1')]);
    const other = await subscribe('t-2');
    expect(feeds.groupCount()).toBe(2);
    const view = toGameEventView(wholeGame('t-1')[3]!, t0) as GameEventView;
    await feeds.gameEvent(view);

    const results = await Promise.all(subscribers.map((feed) => feed.next()));
    const first = results[0]!.value as ExecutionResult;
    expect(first.data).toEqual({ gameEvents: { __typename: 'VoteTotal', totalVotes: 2 } });
    for (const result of results) expect(result.value).toBe(first);

    for (const feed of [...subscribers, other]) await feed.return?.();
    expect(feeds.groupCount()).toBe(0);
  });

  it('refuses a subscription with an empty tournament id', async () => {
    const answer = await feeds.subscribe({
      schema,
      document,
      variableValues: { id: ' ' },
      contextValue: {} as GraphQLContext,
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
});
