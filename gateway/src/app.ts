import express, { type Express } from 'express';
import {
  createHttpApp,
  finishHttpApp,
  httpServerComponent,
  type HttpServerComponent,
  type Logger,
  type ReadinessReport,
  type Registry,
} from '@underdog/kit';
import type { LiveStore } from '@underdog/store';
import { Accounts } from './accounts';
import { Advertisements } from './ads';
import { Callers } from './callers';
import type { GatewayClients } from './clients';
import type { GatewaySettings } from './config';
import { requireCsrfSafeMutation } from './csrf';
import { createGraphQLEndpoint } from './graphql/server';
import { RateLimiter } from './rate-limiter';
import { GameRecordsReads } from './records';
import { createRestRouter } from './rest';
import { SessionCookie } from './session';
import { Tournaments } from './tournaments';
import { attachWebSockets } from './websockets';

export interface GatewayOptions {
  logger: Logger;
  registry: Registry;
  clients: GatewayClients;
  /** The live store the rate limits count in: Redis in distributed mode, memory in standalone. */
  store: LiveStore;
  settings: GatewaySettings;
  readiness: () => Promise<ReadinessReport>;
  /** The built web app to serve at `/`, when there is one. */
  webRoot?: string;
}

export interface Gateway {
  /** The HTTP surface: REST under /api, GraphQL at /graphql, health, the web app. */
  app: Express;
  /**
   * The HTTP listener as a lifecycle component, with the `/graphql` WebSocket endpoint on the
   * same server. Stopping it closes the WebSockets, drains the HTTP requests, then stops Apollo.
   */
  listen(options: { port: number; host: string; logger?: Logger }): HttpServerComponent;
}

/** The gateway, the same in both run modes; only the clients and the store differ. */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const { logger, clients, settings } = options;
  const callers = new Callers(clients.auth, new SessionCookie(settings.cookieSecure));
  const accounts = new Accounts(clients, new RateLimiter(options.store), settings.rateLimits);
  const tournaments = new Tournaments(clients);
  const advertisements = new Advertisements(clients);
  const records = new GameRecordsReads(clients, tournaments);
  const graphql = await createGraphQLEndpoint({
    logger,
    callers,
    services: { accounts, tournaments, advertisements, records, clients },
    introspection: settings.introspection,
  });

  const app = createHttpApp(options);
  app.set('trust proxy', settings.trustProxy);
  app.use('/api', requireCsrfSafeMutation);
  app.use(express.json({ limit: '100kb' }));
  app.use(
    createRestRouter({
      clients,
      accounts,
      tournaments,
      advertisements,
      records,
      callers,
      devMailbox: settings.devMailbox,
    }),
  );
  app.all('/graphql', graphql.http);
  if (options.webRoot) app.use(express.static(options.webRoot));
  finishHttpApp(app, logger);

  return {
    app,
    listen(listenOptions) {
      const http = httpServerComponent(app, {
        ...listenOptions,
        onServer: (server) => attachWebSockets(server, { '/graphql': graphql.webSocket }),
      });
      return {
        ...http,
        stop: async () => {
          await graphql.closeWebSockets();
          await http.stop?.();
          await graphql.stop();
        },
      };
    },
  };
}
