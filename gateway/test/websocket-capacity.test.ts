import { TournamentStatus } from '@underdog/proto';
import { topics } from '@underdog/platform';
import { waitFor } from '@underdog/test-support';
import WebSocket from 'ws';
import { gatewaySettings, type GatewaySettings } from '../src';
import { rawExchange, startEdgeGateway, upgradeRequest, type EdgeGateway } from './edge-support';
import { encodeLifecycleEvent, lifecycleEvent } from './game-events';
import {
  feedOf,
  graphqlWsClient,
  openWs,
  wsUrlOf,
  type GraphQLFeed,
  type WsTestClient,
} from './realtime-clients';
import { startTestGateway, type TestGateway } from './support';

/**
 * Issue 25 point 5: a gateway holds at most WEBSOCKET_CAPACITY sockets (both endpoints
 * together); past it a new socket is accepted and closed at once with 1013 and
 * `Server full; retry in N s`, and the sockets already in are not touched.
 */

const capacity = 2;
const retrySeconds = 7;
const fullReason = `Server full; retry in ${retrySeconds} s`;

/**
 * The visitors' share is the whole room here: these sockets have no session, and what is
 * checked is the capacity itself (the share and the players' places: waiting-room.test.ts).
 */
function withCapacity(): Pick<GatewaySettings, 'webSocket'> {
  const defaults = gatewaySettings({}, 'test');
  return {
    webSocket: { ...defaults.webSocket, capacity, fullRetrySeconds: retrySeconds, visitorShare: 1 },
  };
}

interface Closed {
  code: number;
  reason: string;
  /** The subprotocol the server chose during the handshake. */
  protocol: string;
}

/** Opens a raw socket and resolves with how the server closed it (it must close it itself). */
function closedBy(url: string, protocol?: string): Promise<Closed> {
  const socket = protocol ? new WebSocket(url, protocol) : new WebSocket(url);
  return new Promise((resolve, reject) => {
    socket.once('unexpected-response', (_req, res) =>
      reject(new Error(`refused with ${res.statusCode}`)),
    );
    socket.once('error', reject);
    socket.once('close', (code: number, reason: Buffer) =>
      resolve({ code, reason: reason.toString(), protocol: socket.protocol }),
    );
  });
}

const tournamentsChanged = 'subscription { tournamentsChanged { kind tournamentId } }';

describe('the gateway capacity (WEBSOCKET_CAPACITY) on both endpoints', () => {
  let gateway: TestGateway;
  const sockets: WsTestClient[] = [];
  const disposers: Array<() => void | Promise<void>> = [];

  beforeEach(async () => {
    gateway = await startTestGateway({
      tournament: { listTournaments: () => ({ tournaments: [] }) },
      settings: withCapacity(),
    });
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    for (const dispose of disposers.splice(0)) await dispose();
    await gateway.stop();
  });

  const wsUrl = () => wsUrlOf(gateway.url('/ws'));
  const graphqlUrl = () => wsUrlOf(gateway.url('/graphql'));
  const ws = async () => {
    const client = await openWs(wsUrl());
    sockets.push(client);
    await client.waitFor((m) => m.type === 'tournaments_update');
    return client;
  };
  /** A graphql-ws client subscribed to tournamentsChanged, once the server acknowledged it. */
  const subscriber = async (): Promise<GraphQLFeed> => {
    const client = graphqlWsClient(graphqlUrl());
    disposers.push(() => client.dispose());
    const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
    const feed = feedOf(client, tournamentsChanged);
    await connected;
    return feed;
  };
  /** Publishes a lifecycle event until `arrived` holds (a subscription's start is not observable). */
  const publishUntil = (arrived: () => boolean) =>
    waitFor(
      async () => {
        if (arrived()) return true;
        await gateway.bus.publish(topics.tournamentLifecycle.name, [
          encodeLifecycleEvent(lifecycleEvent('t-1', 'live', TournamentStatus.LIVE)),
        ]);
        return false;
      },
      { message: 'a lifecycle event on the subscription', intervalMs: 100 },
    );
  const refusals = async () => {
    const metric = await gateway.registry
      .getSingleMetric('underdog_websocket_refused_total')
      ?.get();
    return metric?.values.find((value) => value.labels.reason === 'capacity')?.value ?? 0;
  };

  it('closes the socket past the capacity with 1013 on /ws and /graphql, while the two inside keep getting events', async () => {
    const inside = await ws();
    const feed = await subscriber();

    expect(await closedBy(wsUrl())).toEqual({ code: 1013, reason: fullReason, protocol: '' });
    // The endpoint's own subprotocol is chosen, so a browser's graphql-ws client opens, then
    // reads the close code (a refused handshake would only show it 1006).
    expect(await closedBy(graphqlUrl(), 'graphql-transport-ws')).toEqual({
      code: 1013,
      reason: fullReason,
      protocol: 'graphql-transport-ws',
    });
    // The web app's client: it sees the 1013 close, which it retries on.
    const refused = graphqlWsClient(graphqlUrl());
    disposers.push(() => refused.dispose());
    const closeEvent = new Promise<{ code: number; reason: string }>((resolve) =>
      refused.on('closed', (event) => resolve(event as { code: number; reason: string })),
    );
    const refusedFeed = feedOf(refused, tournamentsChanged);
    expect(await closeEvent).toMatchObject({ code: 1013, reason: fullReason });
    expect(await refusals()).toBe(3);

    const from = inside.messages.length;
    await publishUntil(() => feed.values.length > 0);
    expect(feed.values[0]?.data?.tournamentsChanged).toEqual({ kind: 'live', tournamentId: 't-1' });
    await inside.waitFor((m) => m.type === 'tournament_live', { from });
    expect(refusedFeed.values).toHaveLength(1); // the close, as an error: no event
  });

  it('takes a new socket again once one of those inside closes, on either endpoint', async () => {
    const first = await ws();
    await subscriber();
    expect((await closedBy(graphqlUrl(), 'graphql-transport-ws')).code).toBe(1013);

    first.close();
    await first.closed;
    // The place is free once the server saw the close: a graphql-ws client gets in now.
    const feed = await waitFor(
      async () => {
        const client = graphqlWsClient(graphqlUrl());
        disposers.push(() => client.dispose());
        const outcome = new Promise<'connected' | 'closed'>((resolve) => {
          client.on('connected', () => resolve('connected'));
          client.on('closed', () => resolve('closed'));
        });
        const attempted = feedOf(client, tournamentsChanged);
        return (await outcome) === 'connected' && { attempted };
      },
      { message: 'a graphql-ws client let in', intervalMs: 20 },
    ).then(({ attempted }) => attempted);
    expect((await closedBy(wsUrl())).code).toBe(1013);
    await publishUntil(() => feed.values.length > 0);
    expect(feed.values[0]?.data?.tournamentsChanged).toMatchObject({ kind: 'live' });
  });

  it('has no cap with capacity 0', async () => {
    await gateway.stop();
    const defaults = gatewaySettings({}, 'test');
    gateway = await startTestGateway({
      tournament: { listTournaments: () => ({ tournaments: [] }) },
      settings: { webSocket: { ...defaults.webSocket, capacity: 0 } },
    });
    for (let i = 0; i < 5; i += 1) await ws();
    expect(await refusals()).toBe(0);
  });
});

describe('the log of a full gateway', () => {
  let gateway: EdgeGateway;
  afterEach(() => gateway.stop());

  it('warns once per episode of refusals, not once per socket', async () => {
    gateway = await startEdgeGateway(withCapacity());
    const url = (path: string) => wsUrlOf(gateway.url(path));
    const inside = [await openWs(url('/ws')), await openWs(url('/ws'))];
    for (let i = 0; i < 5; i += 1) {
      expect((await closedBy(url(i % 2 ? '/ws' : '/graphql'))).code).toBe(1013);
    }
    const warnings = gateway.lines.filter((line) => line.msg === 'websocket refused: gateway full');
    expect(warnings).toEqual([
      expect.objectContaining({ level: 40, capacity, open: capacity, retrySeconds }),
    ]);
    for (const socket of inside) socket.close();
  });

  it('still answers a broken handshake with 400 when full, and stays up', async () => {
    gateway = await startEdgeGateway(withCapacity());
    const url = (path: string) => wsUrlOf(gateway.url(path));
    const inside = [await openWs(url('/ws')), await openWs(url('/graphql'))];
    const broken: Array<Record<string, string>> = [
      { 'Sec-WebSocket-Key': 'short' },
      { 'Sec-WebSocket-Version': '99' },
    ];
    for (const headers of broken) {
      expect(await rawExchange(gateway.port, upgradeRequest('/graphql', headers))).toMatchObject({
        status: 400,
        closed: true,
      });
    }
    expect((await fetch(gateway.url('/healthz'))).status).toBe(200);
    for (const socket of inside) socket.close();
  });
});
