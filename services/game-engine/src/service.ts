import { batchConsumer, eventConsumer, parkMessages, type BusMessage } from '@underdog/bus';
import { systemClock, type Clock } from '@underdog/kit';
import {
  topics,
  type ServiceContext,
  type ServiceDefinition,
  type ServiceModule,
} from '@underdog/platform';
import { TournamentLifecycleEventSchema, fromBinary } from '@underdog/proto';
import { AdsCatalog } from './adapters/ads-catalog';
import { GameEventsPublisher } from './adapters/game-events';
import { LiveGames } from './adapters/live-games';
import { VoteBatches } from './adapters/vote-batches';
import type { VotesProgress } from './application/game-runner';
import { Disqualifications } from './application/disqualifications';
import { LifecycleHandler } from './application/lifecycle';
import { Players } from './application/players';
import { GameRunners } from './application/runners';
import { VotesApplier } from './application/votes';
import { gameEngineConfig, type GameEngineConfig } from './config';
import { ruleTimings } from './domain/timings';
import { voteSlotsFor } from './domain/vote-slots';
import { createGameReads, createGameRecords, type GameRecords } from './persistence';
import { recordsRpc } from './records-rpc';
import { engineMetrics } from './metrics';
import { gameRoutes } from './rpc';

/** What a caller may hand in instead of the defaults (tests). */
export interface GameEngineAdapters {
  /** The server clock; default: the system clock. */
  clock?: Clock;
  /** Where finished facts go; defaults to the document store (MongoDB). */
  records?: (context: ServiceContext) => GameRecords;
  /** Wraps how far the votes are applied (tests hold the applier back with it). */
  votesProgress?: (real: VotesProgress) => VotesProgress;
}

/** The module, with the parts tests and in-process callers reach for. */
export interface GameEngineModule extends ServiceModule {
  players: Players;
  disqualifications: Disqualifications;
  runners: GameRunners;
  live: LiveGames;
}

/**
 * Games, rounds and votes: the live round loop, leased per game with fencing, on the live store
 * (see README.md and docs/adr). Consumes `tournament.lifecycle`, `game.votes` and `ads.catalog`;
 * produces `game.events` and `player.outcomes`. The replica's name (`context.instanceId`) owns
 * the leases and names its ads consumer group.
 */
export function createGameEngineModule(
  context: ServiceContext,
  config: GameEngineConfig,
  adapters: GameEngineAdapters = {},
): GameEngineModule {
  const { infrastructure, logger, registry } = context;
  const { bus, store } = infrastructure;
  const clock = adapters.clock ?? systemClock;
  const owner = context.instanceId;
  const live = new LiveGames(store);
  const metrics = engineMetrics(registry);
  const records = adapters.records?.(context) ?? createGameRecords(infrastructure.documents);
  const group = (name: string) => `${config.GAME_KAFKA_GROUP_PREFIX}${name}`;
  const ads = new AdsCatalog(bus, group(`game-engine-ads-${owner}`), logger);
  const events = new GameEventsPublisher(bus);
  // Poison on `game.votes` is parked in its dead-letter topic instead of stalling the partition.
  const votes = new VotesApplier(live, new VoteBatches(store), metrics, logger, (poison) =>
    parkMessages(bus, topics.gameVotesDeadLetter.name, poison),
  );
  const runners = new GameRunners(
    {
      live,
      events,
      records,
      ads,
      votes: (adapters.votesProgress ?? ((real) => real))({
        partitionOf: (votesKey) => bus.partitionOf(topics.gameVotes.name, votesKey),
        endOffset: (partition) => bus.endOffset(topics.gameVotes.name, partition),
        applied: (partition) => live.votesApplied(partition),
        applyBehind: (partition, from, to) =>
          bus.readRange(
            topics.gameVotes.name,
            partition,
            { from: String(from), to: String(to) },
            (batch) => votes.handleBatch(batch),
          ),
      }),
      votesStandStillMs: config.GAME_VOTES_STAND_STILL_MS,
      captureLeaderWaitMs: config.GAME_CAPTURE_LEADER_WAIT_MS,
      closeHold: { maxMs: config.GAME_CLOSE_HOLD_MS, settleMs: config.GAME_CLOSE_HOLD_SETTLE_MS },
      timings: {
        ...ruleTimings,
        resultsMs: config.GAME_RESULTS_SECONDS * 1000,
        recordsDelayMs: config.GAME_RECORDS_DELAY_MS,
        endRecordsWaitMs: config.GAME_END_RECORDS_WAIT_MS,
      },
      lease: {
        ttlMs: config.GAME_LEASE_TTL_MS,
        renewEveryMs: Math.max(20, Math.floor(config.GAME_LEASE_TTL_MS / 4)),
      },
      owner,
      clock,
      logger,
      metrics,
    },
    live,
    config.GAME_SWEEP_MS,
    logger,
  );
  const lifecycle = new LifecycleHandler(live, runners, clock, logger, (players) =>
    voteSlotsFor(players, {
      slots: config.GAME_VOTE_SLOTS,
      playersPerSlot: config.GAME_PLAYERS_PER_VOTE_SLOT,
      partitions: topics.gameVotes.partitions,
    }),
  );
  const players = new Players({ live, store, records, events, clock, logger });
  const disqualifications = new Disqualifications({ live, store, records, events, clock, logger });

  // The votes consumer resumes each partition from the applied mark Redis holds, written with
  // the tallies, not from Kafka's committed offset (docs/adr/0009).
  const votesConsumer = batchConsumer(bus, {
    name: 'votes-consumer',
    groupId: group('game-engine-votes'),
    topics: [topics.gameVotes.name],
    fromBeginning: true,
    // Its own batch handler: a batch's votes are applied one script call per tournament (at most
    // VOTES_PER_APPLY votes a call), each call with the partition's mark.
    handleBatch: (batch: BusMessage[]) => votes.handleBatch(batch),
    storedOffsets: {
      read: (_topic, partition) => votes.storedOffset(partition),
      recheckEveryMs: config.GAME_VOTES_MARK_CHECK_MS,
    },
  });

  return {
    components: [
      ads.component(),
      votesConsumer,
      {
        // The reader a close uses when a votes partition's consumer went silent, ready before
        // it is needed (on Kafka, a group of its own to join): an empty range prepares it.
        name: 'votes-reader',
        start: async () => {
          void bus
            .readRange(topics.gameVotes.name, 0, { from: '0', to: '0' }, async () => {})
            .catch((error: unknown) =>
              logger.warn({ err: error }, 'the votes range reader is not ready; tried when needed'),
            );
        },
      },
      eventConsumer(bus, {
        name: 'lifecycle-consumer',
        groupId: group('game-engine'),
        topic: topics.tournamentLifecycle.name,
        decode: (bytes) => fromBinary(TournamentLifecycleEventSchema, bytes),
        handle: (event, message) => lifecycle.handle(event, message),
        // Nothing is compacted on tournament.lifecycle: a tombstone carries no fact.
        onTombstone: async () => {},
        what: 'lifecycle event',
        logger,
      }),
      runners.component(),
    ],
    registerRpc: gameRoutes(
      players,
      clock,
      recordsRpc(createGameReads(infrastructure.documents)),
      disqualifications,
    ),
    players,
    disqualifications,
    runners,
    live,
  };
}

export const gameEngineService: ServiceDefinition<GameEngineConfig> = {
  name: 'game-engine',
  defaultPort: 8083,
  needs: ['bus', 'store', 'documents'],
  config: gameEngineConfig,
  kafka: (config) => ({
    sessionTimeoutMs: config.GAME_KAFKA_SESSION_TIMEOUT_MS,
    heartbeatIntervalMs: config.GAME_KAFKA_HEARTBEAT_MS,
  }),
  create: (context, config) => createGameEngineModule(context, config),
};
