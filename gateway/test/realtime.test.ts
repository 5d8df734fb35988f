import { AppError } from '@underdog/kit';
import { testClock, waitFor, type TestClock } from '@underdog/test-support';
import WebSocket from 'ws';
import { topics } from '@underdog/platform';
import { timestampFromDate, TournamentStatus } from '@underdog/proto';
import type { LiveGamePort, VoteRequest } from '../src/realtime/ports';
import {
  encodeGameEvent,
  encodeLifecycleEvent,
  gameEvent,
  images,
  lifecycleEvent,
  liveGame,
  wholeGame,
} from './game-events';
import {
  feedOf,
  graphqlWsClient,
  openWs,
  wsUrlOf,
  type ServerMessageLike,
  type WsTestClient,
} from './realtime-clients';
import {
  cookieFrom,
  jsonHeaders,
  startTestGateway,
  userMessage,
  validPassword,
  type TestGateway,
} from './support';

/** A stand-in for `Games`: a visitor may watch; a signed-in caller votes once per round. */
function fakeGames(): LiveGamePort & { votes: VoteRequest[] } {
  const votes: VoteRequest[] = [];
  return {
    votes,
    async liveGame(origin, tournamentId) {
      if (tournamentId === 'missing') {
        throw new AppError('NOT_FOUND', 'Tournament not found', { reason: 'TOURNAMENT_NOT_FOUND' });
      }
      const signedIn = await origin.session.actor();
      const mine = votes.find((vote) => vote.tournamentId === tournamentId);
      return liveGame({
        tournamentId,
        ...(signedIn
          ? {
              player: {
                isParticipant: true,
                isEliminated: false,
                eliminatedInRound: 0,
                isOfflinePlayer: false,
                ...(mine ? { voteImageId: mine.imageId } : {}),
              },
            }
          : {}),
      });
    },
    async vote(origin, vote) {
      if (!(await origin.session.actor())) {
        throw new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NOT_AUTHENTICATED' });
      }
      if (votes.some((cast) => cast.roundNumber === vote.roundNumber)) {
        throw new AppError('CONFLICT', 'You already voted this round', { reason: 'ALREADY_VOTED' });
      }
      votes.push(vote);
      return vote;
    },
  };
}

/** Opens `/ws` clients on the current gateway; each test's are closed after it. */
function wsOpener(gateway: () => TestGateway) {
  const sockets: WsTestClient[] = [];
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });
  return async () => {
    const client = await openWs(wsUrlOf(gateway().url('/ws')), { origin: gateway().url('') });
    sockets.push(client);
    return client;
  };
}

const gameEventsQuery = `subscription ($id: ID!) {
  gameEvents(tournamentId: $id) {
    __typename tournamentId gameId
    ... on GameSnapshot { game { phase roundNumber timeRemaining totalVotes player { voteImageId } } }
    ... on RoundVotingStarted { roundNumber images { id url alt } timeRemaining }
    ... on VoteTotal { totalVotes }
    ... on RoundResults { results { imageId votes percentage isWinner } }
    ... on GameEnded { winner { username } decidedBy }
  }
}`;

describe('the real-time edges (/ws and graphql-ws) on the in-memory bus', () => {
  let gateway: TestGateway;
  let games: ReturnType<typeof fakeGames>;
  const sockets: WsTestClient[] = [];
  const disposers: Array<() => void | Promise<void>> = [];

  beforeEach(async () => {
    games = fakeGames();
    gateway = await startTestGateway({
      games,
      tournament: { listTournaments: () => ({ tournaments: [] }) },
      realtimeLimits: { maxPayloadBytes: 4096, messagesPerSecond: 5, messageBurst: 10 },
    });
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    for (const dispose of disposers.splice(0)) await dispose();
    await gateway.stop();
  });

  const origin = () => gateway.url('');
  const ws = async (headers: Record<string, string> = {}) => {
    const client = await openWs(wsUrlOf(gateway.url('/ws')), { origin: origin(), ...headers });
    sockets.push(client);
    return client;
  };
  const subscribed = async (tournamentId: string, headers: Record<string, string> = {}) => {
    const client = await ws(headers);
    client.send({ type: 'subscribe_tournament', tournamentId });
    await client.waitFor((m) => m.type === 'game_state_update');
    return client;
  };
  const publishGame = (events: ReturnType<typeof wholeGame>) =>
    gateway.bus.publish(topics.gameEvents.name, events.map(encodeGameEvent));
  const login = async () => {
    const response = await fetch(gateway.url('/api/login'), {
      method: 'POST',
      headers: jsonHeaders,
      body: JSON.stringify({ email: 'ann@example.com', password: validPassword }),
    });
    return cookieFrom(response);
  };
  const gql = (headers: Record<string, string> = {}) => {
    const client = graphqlWsClient(wsUrlOf(gateway.url('/graphql')), headers);
    disposers.push(() => client.dispose());
    return client;
  };

  it('sends a new connection the tournament list', async () => {
    const client = await ws();
    expect(await client.waitFor((m) => m.type === 'tournaments_update')).toEqual({
      type: 'tournaments_update',
      data: [],
    });
  });

  it('fans a whole game out to every watcher of the tournament, in order, and to no one else', async () => {
    const [a, b] = [await subscribed('t-1'), await subscribed('t-1')];
    const other = await subscribed('t-2');
    const feed = feedOf(gql(), gameEventsQuery, { id: 't-1' });
    await feed.waitForCount(1);

    await publishGame(wholeGame('t-1'));
    const expected = [
      'game_started',
      'advertisement_started',
      'round_update',
      'round_voting_started',
      'vote_received',
      'voting_ended',
      'results_started',
      'round_completed',
      'game_ended',
      'winner_announced',
      'game_finished',
    ];
    for (const client of [a, b]) {
      await client.waitFor((m) => m.type === 'game_finished');
      const types = client.messages
        .map((m) => m.type)
        .filter((type) => type !== 'tournaments_update' && type !== 'game_state_update');
      expect(types).toEqual(expected);
    }
    expect(JSON.stringify(a.messages.slice(-11))).toBe(JSON.stringify(b.messages.slice(-11)));
    expect(other.messages.map((m) => m.type)).not.toContain('game_started');

    await feed.waitForCount(9);
    const typenames = feed.values.map(
      (value) => (value.data?.gameEvents as { __typename: string }).__typename,
    );
    expect(typenames).toEqual([
      'GameSnapshot',
      'GameStarted',
      'AdvertisementStarted',
      'RoundVotingStarted',
      'VoteTotal',
      'VotingEnded',
      'RoundResults',
      'RoundCompleted',
      'GameEnded',
    ]);
    expect(feed.values[3]?.data?.gameEvents).toMatchObject({
      roundNumber: 1,
      images: images(1),
    });
  });

  it('sends the list and the live and finished news to every connection and tournamentsChanged subscriber', async () => {
    const [watcher, idle] = [await subscribed('t-1'), await ws()];
    const operations = () => gateway.gateway.realtime.feeds.groupCount();
    const before = operations();
    const feed = feedOf(
      gql(),
      'subscription { tournamentsChanged { kind tournamentId tournament { status } } }',
    );
    // Joined once its operation's channel exists (both happen in one step on the server).
    await waitFor(() => operations() === before + 1, 'the subscription on the server');
    await gateway.bus.publish(topics.tournamentLifecycle.name, [
      encodeLifecycleEvent(lifecycleEvent('t-1', 'live', TournamentStatus.LIVE)),
      encodeLifecycleEvent(lifecycleEvent('t-1', 'finished', TournamentStatus.FINISHED)),
    ]);
    for (const client of [watcher, idle]) {
      expect(await client.waitFor((m) => m.type === 'tournament_live')).toMatchObject({
        tournament: { id: 't-1', status: 'live' },
      });
      await client.waitFor((m) => m.type === 'tournament_finished');
    }
    await feed.waitForCount(2);
    expect(feed.values.map((v) => v.data?.tournamentsChanged)).toEqual([
      { kind: 'live', tournamentId: 't-1', tournament: { status: 'live' } },
      { kind: 'finished', tournamentId: 't-1', tournament: { status: 'finished' } },
    ]);
  });

  it("gives tournamentsChanged(tournamentId:) only that tournament's news: a game page gets no other list change", async () => {
    const operations = () => gateway.gateway.realtime.feeds.groupCount();
    const before = operations();
    const own = feedOf(
      gql(),
      'subscription { tournamentsChanged(tournamentId: "t-1") { kind tournamentId } }',
    );
    await waitFor(() => operations() === before + 1, 'the subscription on the server');
    await gateway.bus.publish(topics.tournamentLifecycle.name, [
      encodeLifecycleEvent(lifecycleEvent('t-2', 'live', TournamentStatus.LIVE)),
      encodeLifecycleEvent(lifecycleEvent('t-1', 'live', TournamentStatus.LIVE)),
      encodeLifecycleEvent(lifecycleEvent('t-2', 'finished', TournamentStatus.FINISHED)),
      encodeLifecycleEvent(lifecycleEvent('t-1', 'finished', TournamentStatus.FINISHED)),
    ]);
    await own.waitForCount(2);
    expect(own.values.map((v) => v.data?.tournamentsChanged)).toEqual([
      { kind: 'live', tournamentId: 't-1' },
      { kind: 'finished', tournamentId: 't-1' },
    ]);
  });

  it('starts a subscriber from the snapshot: phase, time left, and for a player their own vote', async () => {
    const cookie = await login();
    const player = await ws({ cookie });
    player.send({ type: 'subscribe_tournament', tournamentId: 't-1' });
    const visitorSnapshot = (await (
      await subscribed('t-1')
    ).waitFor((m) => m.type === 'game_state_update')) as ServerMessageLike & {
      gameState: { player: unknown };
    };
    expect(visitorSnapshot.gameState.player).toBeNull();

    const first = await player.waitFor((m) => m.type === 'game_state_update');
    expect(first).toMatchObject({
      tournamentId: 't-1',
      gameState: { phase: 'voting', votes: {}, totalVotes: 1, player: { voteImageId: null } },
    });

    player.send({
      type: 'game_action',
      tournamentId: 't-1',
      action: 'image_select',
      playerId: 'someone-else',
      imageId: 'round-1-image-2',
      round: 1,
      timestamp: new Date().toISOString(),
    });
    expect(await player.waitFor((m) => m.type === 'vote_processed')).toEqual({
      type: 'vote_processed',
      tournamentId: 't-1',
      imageId: 'round-1-image-2',
      round: 1,
    });

    // Reconnect: a new socket's snapshot carries the vote.
    player.close();
    const again = await ws({ cookie });
    again.send({ type: 'subscribe_tournament', tournamentId: 't-1' });
    expect(await again.waitFor((m) => m.type === 'game_state_update')).toMatchObject({
      gameState: { player: { voteImageId: 'round-1-image-2' } },
    });
  });

  it("answers a refused vote with an error carrying the engine's reason", async () => {
    const visitor = await subscribed('t-1');
    visitor.send({
      type: 'game_action',
      tournamentId: 't-1',
      action: 'image_select',
      imageId: 'round-1-image-0',
      round: 1,
    });
    expect(await visitor.waitFor((m) => m.type === 'error')).toMatchObject({
      code: 'NOT_AUTHENTICATED',
      tournamentId: 't-1',
    });

    const player = await subscribed('t-1', { cookie: await login() });
    const vote = {
      type: 'game_action',
      tournamentId: 't-1',
      action: 'image_select',
      imageId: 'round-1-image-0',
      round: 1,
    };
    player.send(vote);
    await player.waitFor((m) => m.type === 'vote_processed');
    player.send(vote);
    expect(await player.waitFor((m) => m.type === 'error')).toMatchObject({
      code: 'ALREADY_VOTED',
    });
    expect(games.votes).toHaveLength(1);
  });

  it('answers bad frames with an error and keeps the connection', async () => {
    const client = await ws();
    client.send('not json');
    expect(await client.waitFor((m) => m.type === 'error')).toMatchObject({ code: 'BAD_MESSAGE' });
    const count = client.messages.length;
    client.send({ type: 'launch_missiles' });
    expect(await client.waitFor((m) => m.type === 'error', { from: count })).toMatchObject({
      code: 'UNKNOWN_TYPE',
    });
    const next = client.messages.length;
    client.send({
      type: 'game_action',
      tournamentId: 't-1',
      action: 'image_select',
      imageId: '',
      round: 0,
    });
    expect(await client.waitFor((m) => m.type === 'error', { from: next })).toMatchObject({
      code: 'BAD_MESSAGE',
      message: 'Invalid game_action: imageId, round',
    });
    client.send({ type: 'subscribe_tournament', tournamentId: 't-1' });
    await client.waitFor((m) => m.type === 'game_state_update');
  });

  it('closes a connection that floods (1008) or sends a frame past the maximum size (1009)', async () => {
    const flooder = await ws();
    for (let i = 0; i < 50; i += 1)
      flooder.send({ type: 'subscribe_tournament', tournamentId: 't-1' });
    expect(await flooder.closed).toEqual({ code: 1008, reason: 'Too many messages' });

    const big = await ws();
    big.send({ type: 'subscribe_tournament', tournamentId: 'x'.repeat(5000) });
    expect((await big.closed).code).toBe(1009);
  });

  it("refuses an upgrade from another site's page", async () => {
    const status = await new Promise<number | undefined>((resolve) => {
      void openWs(wsUrlOf(gateway.url('/ws')), { origin: 'https://evil.example' }).then(
        () => resolve(101),
        (error: Error) => resolve(Number(/(\d{3})/.exec(error.message)?.[1])),
      );
    });
    expect(status).toBe(403);
  });

  it('says why a subscription to an unknown tournament failed', async () => {
    const client = await ws();
    client.send({ type: 'subscribe_tournament', tournamentId: 'missing' });
    expect(await client.waitFor((m) => m.type === 'error')).toMatchObject({
      code: 'TOURNAMENT_NOT_FOUND',
      tournamentId: 'missing',
    });
  });

  it('executes each event once for every subscriber of the same operation', async () => {
    const feeds = [1, 2, 3].map(() => feedOf(gql(), gameEventsQuery, { id: 't-1' }));
    for (const feed of feeds) await feed.waitForCount(1);
    expect(gateway.gateway.realtime.feeds.groupCount()).toBe(1);
    await publishGame([
      gameEvent('t-1', { case: 'voteTotal', value: { roundNumber: 1, totalVotes: 7 } }),
    ]);
    for (const feed of feeds) {
      await feed.waitForCount(2);
      expect(feed.values[1]?.data?.gameEvents).toMatchObject({
        __typename: 'VoteTotal',
        totalVotes: 7,
      });
    }
  });

  it('sends each event to every graphql-ws subscriber as the same payload, only the id differs', async () => {
    const frames = await Promise.all(
      ['sub-a', 'sub-b'].map(async (id) => {
        const socket = new WebSocket(wsUrlOf(gateway.url('/graphql')), 'graphql-transport-ws');
        disposers.push(() => socket.close());
        const texts: string[] = [];
        socket.on('message', (data: Buffer) => texts.push(data.toString('utf8')));
        await new Promise((resolve) => socket.once('open', resolve));
        socket.send(JSON.stringify({ type: 'connection_init' }));
        await waitFor(() => texts.some((text) => text.includes('"connection_ack"')), 'the ack');
        socket.send(
          JSON.stringify({
            id,
            type: 'subscribe',
            payload: { query: gameEventsQuery, variables: { id: 't-1' } },
          }),
        );
        return { id, texts };
      }),
    );
    const nexts = (texts: string[]) => texts.filter((text) => text.includes('"type":"next"'));
    for (const { texts } of frames) {
      await waitFor(() => nexts(texts).length >= 1, `the snapshot (frames: ${texts.length})`);
    }
    const serialised = jest.spyOn(gateway.gateway.realtime.feeds, 'encoded');
    await publishGame([
      gameEvent('t-1', { case: 'voteTotal', value: { roundNumber: 1, totalVotes: 7 } }),
    ]);
    for (const { texts } of frames) await waitFor(() => nexts(texts).length >= 2, 'the event');
    // Executed and serialised once by the fan-out for both sockets of the operation.
    expect(serialised).toHaveBeenCalledTimes(1);

    const [a, b] = frames.map(({ id, texts }) => {
      const text = nexts(texts)[1]!;
      const prefix = `{"id":"${id}","type":"next","payload":`;
      expect(text.startsWith(prefix)).toBe(true);
      return text.slice(prefix.length);
    });
    expect(a).toBe(b);
    expect(JSON.parse(a!.slice(0, -1))).toMatchObject({
      data: { gameEvents: { __typename: 'VoteTotal', totalVotes: 7 } },
    });
  });

  it('allows joinTournament and castVote over graphql-ws but still refuses session mutations', async () => {
    const client = gql();
    const logout = feedOf(client, 'mutation { logout }');
    await logout.waitForCount(1);
    expect(JSON.stringify(logout.values[0])).toContain('Mutations must be sent over HTTP');
  });
});

describe('the tournament list for new /ws connections', () => {
  let gateway: TestGateway;
  let reads = 0;
  // The gateway's clock stands still unless the test moves it: "together" is a rule, not a race.
  let clock: TestClock;

  beforeEach(async () => {
    reads = 0;
    clock = testClock();
    gateway = await startTestGateway({
      games: fakeGames(),
      clock,
      tournament: {
        listTournaments: () => {
          reads += 1;
          return { tournaments: [] };
        },
      },
    });
  });
  afterEach(() => gateway.stop());

  const ws = wsOpener(() => gateway);

  it('is read again for a socket opening once the shared list is older than its age (2 s)', async () => {
    await (await ws()).waitFor((m) => m.type === 'tournaments_update');
    await (await ws()).waitFor((m) => m.type === 'tournaments_update');
    expect(reads).toBe(1);
    clock.advance(2_001);
    await (await ws()).waitFor((m) => m.type === 'tournaments_update');
    expect(reads).toBe(2);
  });

  it('is read once for sockets opening together, and after a change is the list broadcast with it', async () => {
    const clients = await Promise.all(Array.from({ length: 20 }, () => ws()));
    for (const client of clients) await client.waitFor((m) => m.type === 'tournaments_update');
    expect(reads).toBe(1);

    await gateway.bus.publish(topics.tournamentLifecycle.name, [
      encodeLifecycleEvent(lifecycleEvent('t-1', 'live', TournamentStatus.LIVE)),
    ]);
    await clients[0]!.waitFor((m) => m.type === 'tournament_live');
    const readsAfterChange = reads;
    const late = await ws();
    expect(await late.waitFor((m) => m.type === 'tournaments_update')).toEqual({
      type: 'tournaments_update',
      data: [],
    });
    expect(reads).toBe(readsAfterChange);
  });
});

describe('/ws packets, framed once for every socket', () => {
  let gateway: TestGateway;
  let titleLength = 0;

  beforeEach(async () => {
    gateway = await startTestGateway({
      games: fakeGames(),
      tournament: {
        listTournaments: () => ({
          tournaments: Array.from({ length: 300 }, (_, index) => ({
            id: `t-${index}`,
            title: `Cup ${index} ${'x'.repeat(titleLength)}`,
            status: TournamentStatus.UPCOMING,
            startAt: timestampFromDate(new Date('2030-01-01T12:00:00.000Z')),
            participantCount: 2,
            roundTimeSeconds: 5,
          })),
        }),
      },
    });
  });
  afterEach(() => gateway.stop());

  const ws = wsOpener(() => gateway);

  // A text frame's length takes 7 bits up to 125 bytes, 16 more up to 65,535, 64 more beyond.
  it.each([
    ['a 16-bit', 0, 126, 65_535],
    ['a 64-bit', 300, 65_536, Infinity],
  ])(
    'reach a client whole with %s length, each message of a change on its own, in order',
    async (_label, length, minBytes, maxBytes) => {
      titleLength = length;
      const clients = await Promise.all([ws(), ws()]);
      for (const client of clients) {
        const list = await client.waitFor((m) => m.type === 'tournaments_update');
        const bytes = Buffer.byteLength(JSON.stringify(list));
        expect(bytes).toBeGreaterThanOrEqual(minBytes);
        expect(bytes).toBeLessThanOrEqual(maxBytes);
        expect((list.data as unknown[]).length).toBe(300);
      }
      await gateway.bus.publish(topics.tournamentLifecycle.name, [
        encodeLifecycleEvent(lifecycleEvent('t-7', 'live', TournamentStatus.LIVE)),
      ]);
      for (const client of clients) {
        const live = await client.waitFor((m) => m.type === 'tournament_live');
        // A shorter frame after the long list, in the same write.
        expect(live.tournament).toMatchObject({ id: 't-7' });
        const types = client.messages.map((m) => m.type);
        expect(types.lastIndexOf('tournaments_update')).toBeLessThan(
          types.indexOf('tournament_live'),
        );
        expect(types.filter((type) => type === 'tournaments_update')).toHaveLength(2);
      }
    },
  );
});

describe('tournament news on /ws: at once for its watchers, paced for everyone else', () => {
  let gateway: TestGateway;
  let listed: Array<{ id: string; status: TournamentStatus }>;

  beforeEach(async () => {
    listed = [];
    gateway = await startTestGateway({
      games: fakeGames(),
      tournament: {
        listTournaments: () => ({
          tournaments: listed.map(({ id, status }) => ({
            id,
            title: `Cup ${id}`,
            status,
            startAt: timestampFromDate(new Date('2030-01-01T12:00:00.000Z')),
            participantCount: 2,
            roundTimeSeconds: 5,
          })),
        }),
      },
      // 121 sockets that do not watch t-1 get its change in 3 turns of 50, 300 ms apart.
      realtimeLimits: { tournamentNewsSpreadMs: 900 },
    });
  });
  afterEach(() => gateway.stop());

  const open = wsOpener(() => gateway);
  const ws = async () => {
    const client = await open();
    await client.waitFor((m) => m.type === 'tournaments_update');
    return client;
  };
  const publishChange = (
    id: string,
    kind: 'live' | 'finished',
    list: Array<{ id: string; status: TournamentStatus }>,
  ) => {
    listed = list;
    const status = kind === 'live' ? TournamentStatus.LIVE : TournamentStatus.FINISHED;
    return gateway.bus.publish(topics.tournamentLifecycle.name, [
      encodeLifecycleEvent(lifecycleEvent(id, kind, status)),
    ]);
  };
  const statuses = (message: ServerMessageLike) =>
    (message.data as Array<{ id: string; status: string }>).map((t) => `${t.id}:${t.status}`);

  it("gives a tournament's watchers its change at once, and everyone else over the spread", async () => {
    const idle = await Promise.all(Array.from({ length: 120 }, () => ws()));
    // Opened last: were it paced with the others, it would get the news about 600 ms late.
    const watcher = await ws();
    watcher.send({ type: 'subscribe_tournament', tournamentId: 't-1' });
    await watcher.waitFor((m) => m.type === 'game_state_update');
    await publishChange('t-1', 'live', [{ id: 't-1', status: TournamentStatus.LIVE }]);
    await watcher.waitFor((m) => m.type === 'tournament_live');
    await idle[0]!.waitFor((m) => m.type === 'tournament_live');
    expect(idle.at(-1)!.messages.some((m) => m.type === 'tournament_live')).toBe(false);
    for (const client of idle) {
      expect(await client.waitFor((m) => m.type === 'tournament_live')).toMatchObject({
        tournament: { id: 't-1', status: 'live' },
      });
    }
  });

  it('never gives a socket an older list after a newer one when the two lanes cross', async () => {
    const idle = await Promise.all(Array.from({ length: 120 }, () => ws()));
    // Opened last, so last in the paced turns of t-1's change: about 600 ms after the first.
    const watcher = await ws();
    watcher.send({ type: 'subscribe_tournament', tournamentId: 't-2' });
    await watcher.waitFor((m) => m.type === 'game_state_update');

    await publishChange('t-1', 'live', [
      { id: 't-1', status: TournamentStatus.LIVE },
      { id: 't-2', status: TournamentStatus.LIVE },
    ]);
    await idle[0]!.waitFor((m) => m.type === 'tournament_live');
    await publishChange('t-2', 'finished', [
      { id: 't-1', status: TournamentStatus.LIVE },
      { id: 't-2', status: TournamentStatus.FINISHED },
    ]);
    await watcher.waitFor((m) => m.type === 'tournament_finished');
    await watcher.waitFor((m) => m.type === 'tournament_live', { timeoutMs: 3_000 });

    const types = watcher.messages.map((m) => m.type);
    // The lanes did cross: t-2's change (at once) came before t-1's (paced)...
    expect(types.indexOf('tournament_finished')).toBeLessThan(types.indexOf('tournament_live'));
    // ...and the older list did not come with it: the last list is the newest.
    const lists = watcher.messages.filter((m) => m.type === 'tournaments_update');
    expect(statuses(lists.at(-1)!)).toEqual(['t-1:live', 't-2:finished']);
    // A socket that watches neither gets both changes, in order.
    const last = idle.at(-1)!;
    await last.waitFor((m) => m.type === 'tournament_finished', { timeoutMs: 3_000 });
    const seen = last.messages.filter((m) => m.type === 'tournaments_update').map(statuses);
    expect(seen.slice(-2)).toEqual([
      ['t-1:live', 't-2:live'],
      ['t-1:live', 't-2:finished'],
    ]);
  });
});

describe("a /ws connection's session once it is older than sessionTtlMs", () => {
  let gateway: TestGateway;
  const sockets: WsTestClient[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    await gateway.stop();
  });

  /**
   * The first `answered` lookups answer at once; later ones wait until the test releases them.
   * `hold()` makes every lookup from now on wait, however many were made so far.
   */
  async function start(isEmailVerified: boolean, answered: number, verifiedSessionTtlMs = 0) {
    let lookups = 0;
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    gateway = await startTestGateway({
      games: fakeGames(),
      tournament: { listTournaments: () => ({ tournaments: [] }) },
      realtimeLimits: { sessionTtlMs: 0, verifiedSessionTtlMs },
      auth: {
        getSession: async ({ sessionId }) => {
          lookups += 1;
          if (lookups > answered) await released;
          return {
            user: { ...userMessage('ann@example.com', 'Ann'), isEmailVerified },
            session: { id: sessionId },
          };
        },
      },
    });
    const client = await openWs(wsUrlOf(gateway.url('/ws')), {
      origin: gateway.url(''),
      cookie: 'underdog_session=session-x',
    });
    sockets.push(client);
    client.send({ type: 'subscribe_tournament', tournamentId: 't-1' });
    await client.waitFor((m) => m.type === 'game_state_update');
    return {
      client,
      release,
      lookups: () => lookups,
      hold: () => {
        answered = lookups;
      },
    };
  }

  const vote = {
    type: 'game_action',
    tournamentId: 't-1',
    action: 'image_select',
    imageId: 'round-1-image-0',
    round: 1,
  };

  it('is read again in the background for a verified player: the vote does not wait for it', async () => {
    const { client, release, lookups } = await start(true, 1);

    client.send(vote);

    await client.waitFor((m) => m.type === 'vote_processed');
    expect(lookups()).toBe(2); // the refresh is under way, still unanswered
    release();
  });

  it('is not read again at all for a verified player until verifiedSessionTtlMs', async () => {
    const { client, lookups } = await start(true, 1, 60_000);

    client.send(vote);

    await client.waitFor((m) => m.type === 'vote_processed');
    expect(lookups()).toBe(1);
  });

  it('is read again before the action for anyone else (a verification must show)', async () => {
    // Subscribing read it once or twice (whether it was stale depends on the clock's tick).
    const { client, release, lookups, hold } = await start(false, Number.POSITIVE_INFINITY);
    hold();
    const before = lookups();

    client.send(vote);
    await waitFor(() => lookups() > before, 'the lookup before the action', 5_000);
    // The action waits for the lookup the test holds back: nothing was processed meanwhile.
    expect(client.messages.some((m) => m.type === 'vote_processed')).toBe(false);
    release();
    await client.waitFor((m) => m.type === 'vote_processed');
    expect(lookups()).toBe(before + 1);
  });
});
