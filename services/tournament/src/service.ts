import { systemClock, type Clock } from '@underdog/kit';
import type { ServiceContext, ServiceDefinition, ServiceModule } from '@underdog/platform';
import { AdminActionRepository } from './adapters/admin-action-repository';
import { FairPlayRepository } from './adapters/fair-play-repository';
import { PrizeRepository } from './adapters/prize-repository';
import { adminActionsConsumer } from './admin-actions-consumer';
import { AuditLog } from './application/audit-log';
import { Prizes } from './application/prizes';
import { createLifecycleOutbox, type LifecycleOutbox } from './adapters/lifecycle-outbox';
import { OfflineRepository } from './adapters/offline-repository';
import { TournamentRepository } from './adapters/tournament-repository';
import { FairPlay } from './application/fair-play';
import { FairPlayRetention } from './application/fair-play-retention';
import { OfflineChoices } from './application/offline-choices';
import { Scheduler } from './application/scheduler';
import { Tournaments } from './application/tournaments';
import { tournamentConfig, type TournamentConfig } from './config';
import { gameEventsConsumer } from './game-events-consumer';
import { fairPlayConsumers } from './fair-play-consumers';
import { prizesConsumer } from './prizes-consumer';
import { tournamentRoutes } from './rpc';

/** What a caller may hand in instead of the defaults (tests). */
export interface TournamentAdapters {
  /** The server clock; default: the system clock. */
  clock?: Clock;
}

/** The module, with the parts tests and in-process callers reach for. */
export interface TournamentModule extends ServiceModule {
  tournaments: Tournaments;
  offline: OfflineChoices;
  scheduler: Scheduler;
  /** The fair-play report (issue 28): its signals, rounds and `report()`. */
  fairPlay: FairPlay;
  /** Publishes `tournament.lifecycle`; its sweep republishes what a crash or outage left. */
  outbox: LifecycleOutbox;
  /** The audit log of admin actions (`admin.actions`, issue 28). */
  auditLog: AuditLog;
  /** Finished games' prizes and their confirmed payments (issue 28). */
  prizes: Prizes;
}

/**
 * Tournaments (admin management), the scheduler that starts them at `startAt`, offline choices
 * and the server clock; publishes `tournament.lifecycle`, consumes `game.events` (participant
 * count at game start, finished at game end, each round's images), `fair-play.signals` and
 * `game.votes` (the fair-play report). See README.md.
 */
export function createTournamentModule(
  { infrastructure, logger }: ServiceContext,
  config: TournamentConfig,
  adapters: TournamentAdapters = {},
): TournamentModule {
  const clock = adapters.clock ?? systemClock;
  const repository = new TournamentRepository(infrastructure.documents);
  const offlineRepository = new OfflineRepository(infrastructure.documents);
  const outbox = createLifecycleOutbox({
    bus: infrastructure.bus,
    repository,
    offline: offlineRepository,
    clock,
    retryAfterMs: config.outboxRetryAfterMs,
    logger,
  });
  const tournaments = new Tournaments({
    repository,
    offline: offlineRepository,
    outbox,
    clock,
    logger,
  });
  const offline = new OfflineChoices({
    tournaments: repository,
    offline: offlineRepository,
    outbox,
    clock,
    logger,
  });
  const fairPlayRepository = new FairPlayRepository(infrastructure.documents);
  const fairPlay = new FairPlay({ repository: fairPlayRepository, tournaments, clock });
  const retention = new FairPlayRetention({
    repository: fairPlayRepository,
    tournaments,
    clock,
    retentionDays: config.fairPlayRetentionDays,
    logger,
    forgotten: (tournamentId) => fairPlay.forget(tournamentId),
  });
  const auditLog = new AuditLog(new AdminActionRepository(infrastructure.documents));
  const prizes = new Prizes({
    repository: new PrizeRepository(infrastructure.documents),
    tournaments,
    clock,
  });
  const scheduler = new Scheduler({
    repository,
    outbox,
    clock,
    logger,
    pollMs: config.schedulerPollMs,
  });
  return {
    components: [
      scheduler.component(),
      outbox.component,
      gameEventsConsumer({ bus: infrastructure.bus, tournaments, logger, fairPlay }),
      ...fairPlayConsumers({ bus: infrastructure.bus, fairPlay, logger }),
      retention.component(),
      adminActionsConsumer({ bus: infrastructure.bus, auditLog, logger }),
      prizesConsumer({ bus: infrastructure.bus, prizes, logger }),
    ],
    registerRpc: tournamentRoutes({ tournaments, offline, fairPlay, auditLog, prizes, clock }),
    tournaments,
    fairPlay,
    offline,
    scheduler,
    outbox,
    auditLog,
    prizes,
  };
}

export const tournamentService: ServiceDefinition<TournamentConfig> = {
  name: 'tournament',
  defaultPort: 8082,
  needs: ['documents', 'bus'],
  config: tournamentConfig,
  create: (context, config) => createTournamentModule(context, config),
};
