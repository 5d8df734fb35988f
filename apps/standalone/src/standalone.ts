import { adsService } from '@underdog/ads';
import { authService } from '@underdog/auth';
import { gameEngineService } from '@underdog/game-engine';
import {
  FairPlaySignals,
  createGatewayClients,
  createGatewayModule,
  gatewaySettings,
} from '@underdog/gateway';
import {
  ComponentGroup,
  createMetricsRegistry,
  type Component,
  type Environment,
  type HttpServerComponent,
  type Logger,
} from '@underdog/kit';
import { notificationService } from '@underdog/notification';
import {
  createMemoryInfrastructure,
  type ServiceContext,
  type ServiceDefinition,
  type ServiceModule,
} from '@underdog/platform';
import type { RegisterRoutes } from '@underdog/rpc';
import { createTournamentModule, tournamentService } from '@underdog/tournament';
import { Demo } from './demo';

export interface StandaloneOptions {
  logger: Logger;
  env: Environment;
  port: number;
  host: string;
  nodeEnv: ServiceContext['nodeEnv'];
  /** The built web app to serve at `/` (SPA fallback for client routes), if any. */
  webRoot?: string;
  /** Seed the demo (bots and demo tournaments) with this many bots; absent: no demo. */
  demo?: {
    bots: number;
    admin: { email: string; password: string };
    nextGameAfterMs?: number;
    blitzRoundSeconds?: number;
  };
}

export interface Standalone {
  group: ComponentGroup;
  http: HttpServerComponent;
}

/**
 * The whole game in one process: every service's code on in-memory adapters, the services'
 * Connect handlers called in-process, and the gateway on one HTTP port. Same service code as the
 * distributed mode; only the adapters and transports differ.
 */
export async function createStandalone(options: StandaloneOptions): Promise<Standalone> {
  const { logger, env } = options;
  const registry = createMetricsRegistry('standalone');
  const infrastructure = createMemoryInfrastructure(logger);
  const components: Component[] = [];
  const group = new ComponentGroup(logger, components);
  const context = (service: string): ServiceContext => ({
    logger: logger.child({ service }),
    registry,
    infrastructure,
    nodeEnv: options.nodeEnv,
    instanceId: 'standalone',
    readiness: () => group.readiness(),
  });

  async function create<C>(
    definition: ServiceDefinition<C>,
    adjust: (config: C) => C = (config) => config,
  ): Promise<ServiceModule> {
    return definition.create(context(definition.name), adjust(definition.config(env)));
  }

  const auth = await create(authService);
  // Created by hand, not by `create`: the demo's warm-up reaches its use cases (see Demo).
  const tournament = createTournamentModule(
    context(tournamentService.name),
    tournamentService.config(env),
  );
  const gameEngine = await create(gameEngineService);
  const ads = await create(adsService);
  // Without PUBLIC_URL, links in e-mails point at the address this process listens on (PORT=0
  // included), which is known only once it listens: the link is made when an e-mail is sent.
  const notification = await create(notificationService, (config) =>
    config.publicUrlConfigured
      ? config
      : { ...config, publicUrl: () => listeningUrl(options.host, http.port()) },
  );

  const clients = createGatewayClients({
    auth: { mode: 'in-process', routes: rpcRoutesOf('auth', auth) },
    tournament: { mode: 'in-process', routes: rpcRoutesOf('tournament', tournament) },
    game: { mode: 'in-process', routes: rpcRoutesOf('game-engine', gameEngine) },
    ads: { mode: 'in-process', routes: rpcRoutesOf('ads', ads) },
    // In production the notification service serves no RPC (its mailbox is for development)
    // and the gateway never calls it; calls would answer Unimplemented.
    notification: { mode: 'in-process', routes: notification.registerRpc ?? (() => undefined) },
  });
  // The gateway logs as the process does (no service field), as it always has.
  const settings = gatewaySettings(env, options.nodeEnv);
  const { gateway, listen } = await createGatewayModule(
    { ...context('gateway'), logger },
    { settings },
    { clients, webRoot: options.webRoot },
  );
  const http = listen({ port: options.port, host: options.host, logger });
  components.push(
    ...infrastructure.components,
    ...[auth, tournament, gameEngine, ads, notification].flatMap((module) => module.components),
    http,
  );
  if (options.demo) {
    const signals = new FairPlaySignals({
      bus: infrastructure.bus,
      secret: settings.fairPlaySecret,
      logger,
    });
    const demo = new Demo({
      logger: logger.child({ component: 'demo' }),
      clients,
      games: gateway.games,
      scheduleWarmUp: async (admin, draft) =>
        (await tournament.tournaments.create(admin, draft)).id,
      originOfSession: (sessionId, deviceId) => gateway.originOfSession(sessionId, deviceId),
      // The bots' registrations, signalled as the gateway's register does (the same secret).
      registered: (origin, userId) => signals.registered(origin, userId),
      admin: options.demo.admin,
      bots: options.demo.bots,
      nextGameAfterMs: options.demo.nextGameAfterMs,
      blitzRoundSeconds: options.demo.blitzRoundSeconds,
    });
    components.push(demo.component());
  }
  return { group, http };
}

function rpcRoutesOf(name: string, module: ServiceModule): RegisterRoutes {
  if (!module.registerRpc) throw new Error(`the ${name} service has no RPC handlers`);
  return module.registerRpc;
}

/** The address a browser on this machine reaches the server at: `localhost` for a wildcard. */
export function listeningUrl(host: string, port: number): string {
  const wildcard = host === '' || host === '0.0.0.0' || host === '::';
  const name = wildcard ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}
