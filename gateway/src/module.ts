import { ConfigError, type HttpServerComponent, type Logger } from '@underdog/kit';
import type { ServiceContext, ServiceDefinition, ServiceModule } from '@underdog/platform';
import { createGateway, type Gateway } from './app';
import { createGatewayClients, type GatewayClients } from './clients';
import { gatewayConfig, type GatewaySettings } from './config';

/** The gateway's own configuration: the edge settings and, in distributed mode, the services. */
export interface GatewayModuleConfig {
  settings: GatewaySettings;
  /** Where each service answers over HTTP; absent when the clients are handed in (standalone). */
  serviceUrls?: {
    auth: string;
    tournament: string;
    game: string;
    ads: string;
    notification: string;
  };
}

/** What a caller may hand in instead of the defaults (the standalone process, tests). */
export interface GatewayAdapters {
  /** The services' clients; default: Connect over HTTP to `config.serviceUrls`. */
  clients?: GatewayClients;
  /** The built web app (web/dist) to serve at `/`, when there is one. */
  webRoot?: string;
}

/** The gateway as a module: it serves its own HTTP surface (`listen`), the runner none. */
export interface GatewayModule extends ServiceModule {
  gateway: Gateway;
  clients: GatewayClients;
  listen: (options: { port: number; host: string; logger: Logger }) => HttpServerComponent;
}

/** The public edge: REST shims, GraphQL, graphql-ws and `/ws` over the services' RPCs. */
export async function createGatewayModule(
  { logger, registry, infrastructure, instanceId, readiness, serviceTokenSecret }: ServiceContext,
  config: GatewayModuleConfig,
  adapters: GatewayAdapters = {},
): Promise<GatewayModule> {
  const clients = adapters.clients ?? httpClients(config, serviceTokenSecret);
  const gateway = await createGateway({
    logger,
    registry,
    clients,
    store: infrastructure.store,
    bus: infrastructure.bus,
    instanceId,
    settings: config.settings,
    readiness,
    webRoot: adapters.webRoot,
  });
  return {
    gateway,
    clients,
    components: [],
    listen: (options) => gateway.listen(options),
  };
}

/** Over HTTP, every call signed as the gateway with SERVICE_TOKEN_SECRET (the services check it). */
function httpClients(
  { serviceUrls }: GatewayModuleConfig,
  serviceTokenSecret: string | undefined,
): GatewayClients {
  if (!serviceUrls) throw new ConfigError(["the gateway needs the services' URLs or clients"]);
  if (serviceTokenSecret === undefined) {
    throw new ConfigError(['SERVICE_TOKEN_SECRET: the gateway needs it to call the services']);
  }
  const caller = { name: 'gateway', secret: serviceTokenSecret };
  return createGatewayClients({
    auth: { mode: 'http', baseUrl: serviceUrls.auth, caller },
    tournament: { mode: 'http', baseUrl: serviceUrls.tournament, caller },
    game: { mode: 'http', baseUrl: serviceUrls.game, caller },
    ads: { mode: 'http', baseUrl: serviceUrls.ads, caller },
    notification: { mode: 'http', baseUrl: serviceUrls.notification, caller },
  });
}

/** Distributed mode: the gateway as its own process, calling the services over HTTP. */
export const gatewayService: ServiceDefinition<GatewayModuleConfig> = {
  name: 'gateway',
  defaultPort: 8080,
  needs: ['store', 'bus'],
  config: (env) => {
    const config = gatewayConfig(env);
    return {
      settings: config.settings,
      serviceUrls: {
        auth: config.AUTH_URL,
        tournament: config.TOURNAMENT_URL,
        game: config.GAME_ENGINE_URL,
        ads: config.ADS_URL,
        notification: config.NOTIFICATION_URL,
      },
    };
  },
  create: (context, config) => createGatewayModule(context, config),
};
