import type { ServiceContext, ServiceDefinition, ServiceModule } from '@underdog/platform';
import { LifecycleOutbox } from './adapters/lifecycle-outbox';
import { OfflineRepository } from './adapters/offline-repository';
import { TournamentRepository } from './adapters/tournament-repository';
import { OfflineRegistrations } from './application/offline-registrations';
import { Scheduler } from './application/scheduler';
import { Tournaments } from './application/tournaments';
import { tournamentConfig, type TournamentConfig } from './config';
import type { Clock } from './domain/tournament';
import { gameEventsConsumer } from './game-events-consumer';
import { tournamentRoutes } from './rpc';

export interface TournamentServiceOptions {
  /** The server clock; tests pass their own. */
  now?: Clock;
}

/** The service's parts, for the process (its `module`) and for tests and in-process callers. */
export interface TournamentApp {
  module: ServiceModule;
  tournaments: Tournaments;
  offline: OfflineRegistrations;
  scheduler: Scheduler;
}

export function createTournamentApp(
  { infrastructure, logger }: ServiceContext,
  config: TournamentConfig,
  options: TournamentServiceOptions = {},
): TournamentApp {
  const now = options.now ?? (() => new Date());
  const repository = new TournamentRepository(infrastructure.documents);
  const offlineRepository = new OfflineRepository(infrastructure.documents);
  const outbox = new LifecycleOutbox(infrastructure.bus, repository, logger, offlineRepository);
  const tournaments = new Tournaments({
    repository,
    offline: offlineRepository,
    outbox,
    now,
    logger,
  });
  const offline = new OfflineRegistrations({
    tournaments: repository,
    offline: offlineRepository,
    outbox,
    now,
    logger,
  });
  const scheduler = new Scheduler({
    repository,
    outbox,
    now,
    logger,
    pollMs: config.schedulerPollMs,
    outboxRetryAfterMs: config.outboxRetryAfterMs,
  });
  return {
    module: {
      components: [
        scheduler.component(),
        gameEventsConsumer({ bus: infrastructure.bus, tournaments, logger }),
      ],
      registerRpc: tournamentRoutes({ tournaments, offline, now }),
    },
    tournaments,
    offline,
    scheduler,
  };
}

/**
 * Tournaments (admin management), the scheduler that starts them at `startAt`, offline choices
 * and the server clock; publishes `tournament.lifecycle`, consumes `game.events` (participant
 * count at game start, finished at game end). See README.md.
 */
export function createTournamentService(
  options: TournamentServiceOptions = {},
): ServiceDefinition<TournamentConfig> {
  return {
    name: 'tournament',
    defaultPort: 8082,
    needs: ['documents', 'bus'],
    config: tournamentConfig,
    create: (context, config) => createTournamentApp(context, config, options).module,
  };
}

export const tournamentService = createTournamentService();
