// Over 300 lines: the composition root, one function wiring the parts in the order they start.
import type { Express } from 'express';
import {
  createHttpApp,
  finishHttpApp,
  httpServerComponent,
  systemClock,
  type Clock,
  type HttpServerComponent,
  type Logger,
  type ReadinessReport,
  type Registry,
} from '@underdog/kit';
import type { EventBus } from '@underdog/bus';
import type { LiveStore } from '@underdog/store';
import { Accounts } from './accounts';
import { AdminActions } from './admin-actions';
import { Advertisements } from './ads';
import { benchmarkRouter } from './benchmark';
import { PublicOrigins, RequestOrigins } from './request-origins';
import type { GatewayClients } from './clients';
import type { GatewaySettings } from './config';
import { requireCsrfSafeMutation } from './csrf';
import type { LiveFeeds } from './graphql/live/feeds';
import { Games } from './games';
import { createGraphQLEndpoint } from './graphql/server';
import { KnownLoginSources } from './known-login-sources';
import { GameActionLimits } from './game-action-limits';
import { RateLimiter } from './rate-limiter';
import { FairPlayReads } from './fair-play';
import { FairPlaySignals } from './fair-play-signals';
import { GameRecordsReads } from './records';
import { RealtimeCore } from './realtime/core/realtime-core';
import { RealtimeHub } from './realtime/hub';
import { RealtimeMetrics } from './realtime/metrics';
import { defaultRealtimeLimits, type LiveGamePort, type RealtimeLimits } from './realtime/ports';
import { WsEndpoint } from './realtime/ws-endpoint';
import { boundedBodies } from './request-body';
import { createRestRouter } from './rest';
import { securityHeaders } from './security-headers';
import { SessionCookie, type RequestOrigin } from './session';
import { SessionActors } from './session-actors';
import { Tournaments } from './tournaments';
import { webAppRouter } from './web-app';
import { attachWebSockets } from './sockets/upgrade';

/** How long an idle keep-alive connection stays open (below headersTimeout's 60 s). */
const idleKeepAliveMs = 30_000;
export interface GatewayOptions {
  logger: Logger;
  registry: Registry;
  clients: GatewayClients;
  /** The live store the rate limits count in: Redis in distributed mode, memory in standalone. */
  store: LiveStore;
  settings: GatewaySettings;
  readiness: () => Promise<ReadinessReport>;
  /** The built web app (web/dist) to serve at `/` with SPA fallback, when there is one. */
  webRoot?: string;
  /**
   * The bus the real-time fan-out consumes `game.events` and `tournament.lifecycle` from, and
   * votes are produced to (`game.votes`).
   */
  bus: EventBus;
  /** This replica's id; its fan-out consumer group is `gateway-<instanceId>`. */
  instanceId: string;
  /** A stand-in for the live game (snapshot and votes) of the real-time edges; tests only. */
  games?: LiveGamePort;
  /** Tighter or looser real-time bounds than the defaults (tests). */
  realtimeLimits?: Partial<RealtimeLimits>;
  /**
   * The gateway's clock, for every rule measured in time (session ages and TTLs, message
   * budgets, time left in a round, the connection_init deadline); default: the system clock.
   * Tests move their own (`testClock` of @underdog/test-support).
   */
  clock?: Clock;
}

export interface Gateway {
  /** The HTTP surface: REST under /api, GraphQL at /graphql, health, the web app. */
  app: Express;
  /** The real-time fan-out: consumer, the core of both protocols, `/ws`, graphql-ws (tests publish). */
  realtime: { hub: RealtimeHub; core: RealtimeCore; ws: WsEndpoint; feeds: LiveFeeds };
  /** The live game's join/vote/snapshot functions, the ones both edges call (the demo bots too). */
  games: Games;
  /** The caller of a session this process holds itself (the standalone demo's bots). */
  originOfSession(sessionId: string, deviceId: string): RequestOrigin;
  /**
   * The HTTP listener as a lifecycle component, with the `/graphql` and `/ws` WebSocket
   * endpoints on the same server and the real-time consumer. Starting joins the consumer group
   * first; stopping closes the WebSockets, drains the HTTP requests, stops Apollo, then leaves.
   */
  listen(options: { port: number; host: string; logger?: Logger }): HttpServerComponent;
}

/** The gateway, the same in both run modes; only the clients and the store differ. */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const { logger, settings } = options;
  const clock = options.clock ?? systemClock;
  // Every session lookup of this gateway goes through one cache: a vote over HTTP costs no
  // session RPC, and a logout through this gateway shows at once on its open sockets.
  // The frame limit is the settings' (WEBSOCKET_MAX_PAYLOAD_BYTES), for every endpoint.
  const limits: RealtimeLimits = {
    ...defaultRealtimeLimits,
    maxPayloadBytes: settings.webSocket.maxPayloadBytes,
    firstMessageTimeoutMs: settings.webSocket.firstMessageTimeoutMs,
    maxSubscriptionsPerSocket: settings.webSocket.maxSubscriptionsPerSocket,
    ...options.realtimeLimits,
  };
  // A verified session's actor is reused as long as a socket reuses a visitor's (60 s).
  const actors = new SessionActors(options.clients.auth, {
    ttlMs: limits.sessionTtlMs,
    endedMemoryMs: limits.sessionMaxAgeMs,
    // A clock given (tests) is the cache's; otherwise lru-cache keeps its monotonic timer.
    ...(options.clock && { now: () => clock.now().getTime() }),
  });
  // Every admin mutation through these clients is published on admin.actions (ADR 11).
  const clients: GatewayClients = new AdminActions({
    bus: options.bus,
    logger,
    registry: options.registry,
    clock,
  }).wrap({ ...options.clients, auth: actors.client() });
  const origins = new RequestOrigins(
    clients.auth,
    new SessionCookie(settings.cookieSecure),
    settings.trustProxy,
  );
  const publicOrigins = new PublicOrigins(settings.publicOrigins, settings.cookieSecure);
  if (settings.fairPlaySecretGenerated) {
    logger.warn(
      'FAIR_PLAY_SECRET is unset: a secret was made for this process, so fair-play signals ' +
        'recorded before a restart no longer link to new ones (set it to keep them comparable)',
    );
  }
  const signals = new FairPlaySignals({
    bus: options.bus,
    secret: settings.fairPlaySecret,
    logger,
  });
  const accounts = new Accounts(
    clients,
    new RateLimiter(options.store),
    settings.rateLimits,
    new KnownLoginSources(options.store),
    signals,
  );
  const fairPlay = new FairPlayReads(clients);
  const tournaments = new Tournaments(clients);
  const advertisements = new Advertisements(clients);
  const records = new GameRecordsReads(clients, tournaments);
  const metrics = new RealtimeMetrics(options.registry);
  const listTournaments = () => tournaments.list();
  const games = new Games({
    clients,
    store: options.store,
    bus: options.bus,
    registry: options.registry,
    logger,
    withdrawalReplicas: settings.voteWithdrawal.replicas,
    withdrawalWaitMs: settings.voteWithdrawal.waitMs,
    backlog: settings.voteBacklog,
    limits: new GameActionLimits(settings.gameActionLimits),
    fairPlay: signals,
  });
  // Tests may stand a stub in for the real-time edges; GraphQL's mutations use the real one.
  const liveGames: LiveGamePort = options.games ?? games;
  // One fan-out for both socket protocols (ADR 10): the registry, hold, drop and heartbeat.
  const core = new RealtimeCore({ logger, limits, metrics });
  // What both edges answer with: GraphQL's resolvers and the REST shims call the same ones.
  const services = {
    accounts,
    tournaments,
    advertisements,
    records,
    games,
    clients,
    fairPlay,
    signals,
  };
  const graphql = await createGraphQLEndpoint({
    logger,
    origins,
    services,
    introspection: settings.introspection,
    suggestions: settings.suggestions,
    fastMutations: settings.graphqlFastPath,
    limits,
    actors,
    core,
    games: liveGames,
    clock,
  });
  const ws = new WsEndpoint({
    logger,
    origins,
    limits,
    core,
    listTournaments,
    games: liveGames,
    actors,
    clock,
  });
  const hub = new RealtimeHub({
    bus: options.bus,
    logger,
    instanceId: options.instanceId,
    listTournaments,
    clock,
  });
  hub.addListener(core);
  const consumer = hub.component();
  // Every replica hears every revocation (its own group): open sockets re-read their session.
  const revocations = actors.revocationConsumer({
    bus: options.bus,
    groupId: `gateway-revocations-${options.instanceId}`,
    logger,
  });

  const app = createHttpApp({
    ...options,
    middleware: [
      securityHeaders({
        secure: settings.cookieSecure,
        graphqlLandingPage: settings.introspection,
        publicOrigins,
      }),
    ],
  });
  app.set('trust proxy', settings.trustProxy);
  app.use('/api', requireCsrfSafeMutation);
  // Bounded and timed before any route reads it (413/408 without reading the rest; see the file).
  app.use(
    boundedBodies({
      maxBodyBytes: settings.http.maxBodyBytes,
      timeoutMs: settings.http.bodyTimeoutMs,
    }),
  );
  app.use(createRestRouter({ ...services, origins, devMailbox: settings.devMailbox }));
  if (settings.benchmarkSeed) app.use(benchmarkRouter({ clients, origins }));
  app.all('/graphql', graphql.http);
  if (options.webRoot) app.use(webAppRouter(options.webRoot));
  finishHttpApp(app, logger);

  return {
    games,
    originOfSession: (sessionId, deviceId) => origins.fromSession(sessionId, deviceId),
    app,
    realtime: { hub, core, ws, feeds: graphql.feeds },
    listen(listenOptions) {
      const http = httpServerComponent(app, {
        ...listenOptions,
        onServer: (server) => {
          // A backstop for bodies no route reads (boundedBodies times the others): Node answers
          // 408 and closes once a request has taken this long to arrive, headers included.
          server.requestTimeout = server.headersTimeout + settings.http.bodyTimeoutMs;
          // An idle keep-alive connection is kept 30 s, not Node's 5 s: a client whose next
          // request crosses the server's close gets ECONNRESET (fetch retries only idempotent
          // requests), and a busy client's timers lag by more than undici's 1 s margin.
          server.keepAliveTimeout = idleKeepAliveMs;
          attachWebSockets(
            server,
            { '/graphql': graphql.webSocket, '/ws': ws.server },
            {
              maxPayloadBytes: limits.maxPayloadBytes,
              maxConnectionsPerAddress: settings.webSocket.maxConnectionsPerAddress,
              capacity: settings.webSocket.capacity,
              fullRetrySeconds: settings.webSocket.fullRetrySeconds,
              visitorShare: settings.webSocket.visitorShare,
              maxConnectionsPerPrefix: settings.webSocket.maxConnectionsPerPrefix,
              // A player is an upgrade whose cookie names a live session; a failed lookup is a
              // visitor's. The socket starts from this lookup (`fromAdmission`): no second one.
              guestOf: async (req) =>
                (await origins
                  .fromAdmission(req, clock.now().getTime())
                  .session.actor()
                  .catch(() => undefined))
                  ? 'player'
                  : 'visitor',
              registry: options.registry,
              trustProxy: settings.trustProxy,
              publicOrigins,
              logger,
            },
          );
        },
      });
      return {
        ...http,
        start: async () => {
          await consumer.start?.();
          await revocations.start?.();
          await http.start?.();
        },
        stop: async () => {
          await Promise.all([graphql.closeWebSockets(), ws.close()]);
          core.close();
          await http.stop?.();
          await graphql.stop();
          await revocations.stop?.();
          await consumer.stop?.();
        },
      };
    },
  };
}
