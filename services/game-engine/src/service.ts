import { hostname } from 'node:os';
import type { Subscription } from '@underdog/bus';
import type { Component } from '@underdog/kit';
import {
  topics,
  type ServiceContext,
  type ServiceDefinition,
  type ServiceModule,
} from '@underdog/platform';
import { AdsCatalog } from './adapters/ads-catalog';
import { GameEventsPublisher } from './adapters/game-events';
import { LiveGames } from './adapters/live-games';
import { LifecycleHandler } from './application/lifecycle';
import { Players } from './application/players';
import { GameRunners } from './application/runners';
import { VotesApplier } from './application/votes';
import { gameEngineConfig, type GameEngineConfig } from './config';
import { ruleTimings } from './domain/timings';
import { createGameReads, createGameRecords, type GameRecords } from './persistence';
import { recordsRpc } from './records-rpc';
import { engineMetrics } from './metrics';
import { gameRoutes } from './rpc';

export interface GameEngineOptions {
  /** The server clock (ms since the epoch); tests pass their own. */
  now?: () => number;
  /** Where finished facts go; defaults to the document store (MongoDB). */
  records?: (context: ServiceContext) => GameRecords;
  /** This replica's name (lease owner, ads group); defaults to host and pid. */
  instanceId?: string;
}

export interface GameEngineApp {
  module: ServiceModule;
  players: Players;
  runners: GameRunners;
  live: LiveGames;
}

export function createGameEngineApp(
  context: ServiceContext,
  config: GameEngineConfig,
  options: GameEngineOptions = {},
): GameEngineApp {
  const { infrastructure, logger, registry } = context;
  const { bus, store } = infrastructure;
  const now = options.now ?? (() => Date.now());
  const owner = options.instanceId ?? `${hostname()}-${process.pid}`;
  const live = new LiveGames(store);
  const metrics = engineMetrics(registry);
  const records = options.records?.(context) ?? createGameRecords(infrastructure.documents);
  const ads = new AdsCatalog(bus, `game-engine-ads-${owner}`, logger);
  const events = new GameEventsPublisher(bus);
  const runners = new GameRunners(
    {
      live,
      events,
      records,
      ads,
      votes: {
        partitionOf: (tournamentId) => bus.partitionOf(topics.gameVotes.name, tournamentId),
        endOffset: (partition) => bus.endOffset(topics.gameVotes.name, partition),
        applied: (partition) => live.votesApplied(partition),
      },
      timings: { ...ruleTimings, resultsMs: config.GAME_RESULTS_SECONDS * 1000 },
      lease: {
        ttlMs: config.GAME_LEASE_TTL_MS,
        renewEveryMs: Math.max(20, Math.floor(config.GAME_LEASE_TTL_MS / 4)),
      },
      votesWaitMaxMs: config.GAME_VOTES_WAIT_MAX_MS,
      owner,
      now,
      logger,
      metrics,
    },
    live,
    config.GAME_SWEEP_MS,
    logger,
  );
  const lifecycle = new LifecycleHandler(live, runners, now, logger);
  const votes = new VotesApplier(live, metrics, logger);
  const players = new Players({ live, store, records, events, now, logger });

  const consumer = (
    name: string,
    groupId: string,
    topic: string,
    handle: (batch: import('@underdog/bus').BusMessage[]) => Promise<void>,
  ): Component => {
    let subscription: Subscription | undefined;
    return {
      name,
      start: async () => {
        subscription = await bus.subscribe({
          groupId,
          topics: [topic],
          fromBeginning: true,
          handleBatch: handle,
        });
      },
      stop: async () => subscription?.stop(),
    };
  };

  return {
    module: {
      components: [
        ads.component(),
        consumer('votes-consumer', 'game-engine-votes', topics.gameVotes.name, (batch) =>
          votes.handleBatch(batch),
        ),
        consumer(
          'lifecycle-consumer',
          'game-engine',
          topics.tournamentLifecycle.name,
          async (batch) => {
            for (const message of batch) await lifecycle.handle(message);
          },
        ),
        runners.component(),
      ],
      registerRpc: gameRoutes(players, now, recordsRpc(createGameReads(infrastructure.documents))),
    },
    players,
    runners,
    live,
  };
}

/**
 * Games, rounds and votes: the live round loop, leased per game with fencing, on the live store
 * (see README.md and docs/adr). Consumes `tournament.lifecycle`, `game.votes` and `ads.catalog`;
 * produces `game.events` and `player.outcomes`.
 */
export function createGameEngineService(
  options: GameEngineOptions = {},
): ServiceDefinition<GameEngineConfig> {
  return {
    name: 'game-engine',
    defaultPort: 8083,
    needs: ['bus', 'store', 'documents'],
    config: gameEngineConfig,
    kafka: (config) => ({
      sessionTimeoutMs: config.GAME_KAFKA_SESSION_TIMEOUT_MS,
      heartbeatIntervalMs: config.GAME_KAFKA_HEARTBEAT_MS,
    }),
    create: (context, config) => createGameEngineApp(context, config, options).module,
  };
}

export const gameEngineService = createGameEngineService();
