import {
  ComponentGroup,
  createLogger,
  createMetricsRegistry,
  requireAdmin,
  type Component,
  type HttpServerComponent,
} from '@underdog/kit';
import { gameKeys } from '@underdog/live-game';
import { createMemoryInfrastructure, topics, type ServiceModule } from '@underdog/platform';
import {
  AdsService,
  GameService,
  NotificationService,
  Role,
  TournamentService,
  timestampFromDate,
} from '@underdog/proto';
import { waitFor } from '@underdog/test-support';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
// The real auth service, as standalone runs it: it is what publishes the revocations.
import { createAuthModule } from '../../services/auth/src/service';
import { createGateway, createGatewayClients, gatewaySettings, type GatewayClients } from '../src';
import { feedOf, wsUrlOf } from './realtime-clients';

/**
 * Issue 37, acceptance 1: a revoked session stops acting on the sockets opened with it, on
 * every gateway, within 2 s. Two gateways on one bus and one store (as two replicas on Kafka and
 * Redis), in front of the real auth service on the in-memory adapters; its revocations travel
 * on `session.revocations`. The 2 s bound is the requirement, so it is the wait's limit.
 */
const logger = createLogger({ service: 'session-revocation-test', level: 'silent' });
const ADMIN = { email: 'boss@revocation.example', password: 'boss-password1' };
const TOURNAMENT = 'tournament-session-revocation';
const REVOCATION_LIMIT_MS = 2_000;
/** Below the socket's message rate (10 a second): a socket closed for flooding would reopen. */
const POLL_MS = 200;

interface Edge {
  url(path: string): string;
  http: HttpServerComponent;
}

type Answer = {
  data?: Record<string, unknown> | null;
  errors?: Array<{ extensions?: { code?: string } }>;
};

describe('revocations reach open sockets on every gateway', () => {
  const infrastructure = createMemoryInfrastructure(logger);
  let components: Component[];
  let auth: ServiceModule;
  let gatewayA: Edge;
  let gatewayB: Edge;
  let clients: GatewayClients;
  const sockets: Client[] = [];

  beforeAll(async () => {
    await infrastructure.components[0]!.start?.();
    const group = new ComponentGroup(logger, []);
    const context = (instanceId: string) => ({
      logger,
      registry: createMetricsRegistry(`revocation-${instanceId}`),
      infrastructure,
      nodeEnv: 'test' as const,
      instanceId,
      readiness: () => group.readiness(),
    });
    auth = await createAuthModule(context('auth'), {
      admin: { ...ADMIN, displayName: 'Boss' },
      benchmarkSeed: true,
    });
    components = [...auth.components];
    for (const component of components) await component.start?.();
    clients = createGatewayClients({
      auth: { mode: 'in-process', routes: auth.registerRpc! },
      tournament: {
        mode: 'in-process',
        routes: (router) =>
          router.service(TournamentService, {
            getServerTime: () => ({ serverTime: timestampFromDate(new Date()) }),
            // The tournament service's own check: the role of the actor the gateway sends.
            getFairPlayReport: ({ actor, tournamentId }) => {
              requireAdmin(actor);
              return { report: { tournamentId, participantCount: 0 } };
            },
          }),
      },
      ads: { mode: 'in-process', routes: (router) => router.service(AdsService, {}) },
      game: { mode: 'in-process', routes: (router) => router.service(GameService, {}) },
      notification: {
        mode: 'in-process',
        routes: (router) => router.service(NotificationService, {}),
      },
    });
    const edge = async (instanceId: string): Promise<Edge> => {
      const { registry } = context(instanceId);
      const gateway = await createGateway({
        logger,
        registry,
        clients,
        store: infrastructure.store,
        bus: infrastructure.bus,
        instanceId,
        settings: gatewaySettings({}, 'test'),
        readiness: () => group.readiness(),
      });
      const http = gateway.listen({ port: 0, host: '127.0.0.1' });
      await http.start?.();
      return { http, url: (path) => `http://127.0.0.1:${http.port()}${path}` };
    };
    gatewayA = await edge('revocation-gateway-a');
    gatewayB = await edge('revocation-gateway-b');
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) await socket.dispose();
  });
  afterAll(async () => {
    await gatewayA.http.stop?.();
    await gatewayB.http.stop?.();
    for (const component of components.reverse()) await component.stop?.();
    await infrastructure.components[0]!.stop?.();
  });

  const graphqlOver = async (edge: Edge, query: string, cookie = ''): Promise<Answer> => {
    const response = await fetch(edge.url('/graphql'), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-device-id': 'device-revocation-http',
        ...(cookie ? { cookie } : {}),
      },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as Answer;
  };

  /** Logs the admin in through `edge`: a session of its own, as another device's. */
  async function adminSession(edge: Edge, password = ADMIN.password): Promise<string> {
    const response = await fetch(edge.url('/graphql'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-device-id': 'device-revocation-admin' },
      body: JSON.stringify({
        query: `mutation { login(email: "${ADMIN.email}", password: "${password}") { id } }`,
      }),
    });
    const pair = response.headers.get('set-cookie')?.split(';', 1)[0];
    if (!pair) throw new Error(`login set no cookie: ${await response.text()}`);
    return pair;
  }

  /**
   * One socket kept open for the whole test (graphql-ws's lazy client would close it between
   * operations and open a new one, which reads the session afresh): `opened` counts the
   * connections, so a test can show every operation went over the one it opened first.
   */
  function socketOn(
    edge: Edge,
    cookie: string,
    deviceId = 'device-revocation-socket',
  ): { client: Client; opened: () => number } {
    let connections = 0;
    const headers = { origin: edge.url(''), cookie };
    const client = createClient({
      url: wsUrlOf(edge.url(`/graphql?deviceId=${deviceId}`)),
      webSocketImpl: class extends WebSocket {
        constructor(url: string, protocols?: string | string[]) {
          super(url, protocols, { headers });
        }
      },
      lazy: false,
      retryAttempts: 0,
      on: { connected: () => (connections += 1) },
    });
    sockets.push(client);
    return { client, opened: () => connections };
  }

  async function overSocket(
    socket: { client: Client },
    query: string,
    variables: Record<string, unknown> = {},
  ): Promise<Answer> {
    const feed = feedOf(socket.client, query, variables);
    await feed.waitForCount(1);
    return feed.values[0] as Answer;
  }

  const codeOf = (answer: Answer) => answer.errors?.[0]?.extensions?.code;
  const fairPlay = `{ tournamentFairPlay(tournamentId: "${TOURNAMENT}") { participantCount } }`;
  const me = '{ me { username } }';

  /** What the operators' CLI does (`grant-admin` / `revoke-admin`). */
  async function setRole(role: Role): Promise<void> {
    await clients.auth.setRole({ email: ADMIN.email, role });
  }

  it('refuses an admin demoted while their socket is open FORBIDDEN on the next admin operation', async () => {
    const socket = socketOn(gatewayA, await adminSession(gatewayA));
    expect(await overSocket(socket, fairPlay)).toEqual({
      data: { tournamentFairPlay: { participantCount: 0 } },
    });

    await setRole(Role.USER);
    try {
      // FORBIDDEN: 403, with the reason as its GraphQL code (ADMIN_ONLY), as over HTTP.
      await waitFor(async () => codeOf(await overSocket(socket, fairPlay)) === 'ADMIN_ONLY', {
        message: 'FORBIDDEN on the open socket',
        timeoutMs: REVOCATION_LIMIT_MS,
        intervalMs: POLL_MS,
      });
    } finally {
      await setRole(Role.ADMIN);
    }
    expect(socket.opened()).toBe(1);
  });

  it('lets no vote through the socket of a player who logged out on another gateway', async () => {
    const player = await seededPlayer();
    await openVoting(player.userId);
    const cookie = `underdog_session=${player.sessionId}`;
    const socket = socketOn(gatewayA, cookie, player.deviceId);
    expect(await overSocket(socket, me)).toEqual({ data: { me: { username: player.username } } });

    const logout = await graphqlOver(gatewayB, 'mutation { logout }', cookie);
    expect(logout).toEqual({ data: { logout: true } });

    await waitFor(async () => (await overSocket(socket, me)).data?.me === null, {
      message: 'the socket acting as a visitor',
      timeoutMs: REVOCATION_LIMIT_MS,
      intervalMs: POLL_MS,
    });
    const vote = await overSocket(
      socket,
      `mutation Vote($tournamentId: ID!) {
        castVote(tournamentId: $tournamentId, roundNumber: 1, imageId: "round-1-image-0") { imageId }
      }`,
      { tournamentId: TOURNAMENT },
    );
    expect(codeOf(vote)).toBe('SOCKET_UNAUTHENTICATED');
    const partition = await infrastructure.bus.partitionOf(topics.gameVotes.name, TOURNAMENT);
    expect(await infrastructure.bus.endOffset(topics.gameVotes.name, partition)).toBe('0');
    expect(socket.opened()).toBe(1);
  });

  it('ends the sockets of every other session when the password changes, on every gateway', async () => {
    const onA = socketOn(gatewayA, await adminSession(gatewayA));
    const onB = socketOn(gatewayB, await adminSession(gatewayB));
    for (const socket of [onA, onB]) {
      expect((await overSocket(socket, me)).data?.me).toEqual({ username: expect.any(String) });
    }

    // A third device changes the password through gateway A.
    const changed = await graphqlOver(
      gatewayA,
      `mutation { changePassword(currentPassword: "${ADMIN.password}", newPassword: "boss-password2") }`,
      await adminSession(gatewayA),
    );
    expect(changed.errors).toBeUndefined();
    try {
      await waitFor(
        async () => {
          const answers = await Promise.all([onA, onB].map((socket) => overSocket(socket, me)));
          return answers.every((answer) => answer.data?.me === null);
        },
        {
          message: 'both sockets acting as visitors',
          timeoutMs: REVOCATION_LIMIT_MS,
          intervalMs: POLL_MS,
        },
      );
    } finally {
      await graphqlOver(
        gatewayA,
        `mutation { changePassword(currentPassword: "boss-password2", newPassword: "${ADMIN.password}") }`,
        await adminSession(gatewayA, 'boss-password2'),
      );
    }
    expect([onA.opened(), onB.opened()]).toEqual([1, 1]);
  });

  /** A verified player with a session, made by the auth service's benchmark seam. */
  async function seededPlayer() {
    const { users } = await clients.auth.seedBenchmarkUsers({ count: 1, label: 'revoke' });
    return users[0]!;
  }

  async function openVoting(userId: string): Promise<void> {
    const keys = gameKeys(TOURNAMENT);
    await infrastructure.store.hSet(keys.state, {
      tournamentStatus: 'live',
      gameId: 'game-revocation',
      phase: 'voting',
      round: '1',
      votingEndsAt: String(Date.now() + 60_000),
    });
    await infrastructure.store.hSet(keys.players, { [userId]: JSON.stringify({ userId }) });
    await infrastructure.store.sAdd(keys.alive, userId);
  }
});
