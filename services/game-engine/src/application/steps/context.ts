import type { Clock, Logger } from '@underdog/kit';
import type { GameState } from '@underdog/live-game';
import type { AdsCatalog } from '../../adapters/ads-catalog';
import type { GameEventKind, GameEventsPublisher } from '../../adapters/game-events';
import type { Expectation, LiveGames } from '../../adapters/live-games';
import type { LoopMemory } from '../../domain/round-loop';
import type { GameTimings } from '../../domain/timings';
import type { EngineMetrics } from '../../metrics';
import type { GameRecords } from '../../persistence';
import type { RecordsWriter } from '../records-writer';
import type { VotesWait } from '../votes-wait';

/** Where the votes of a tournament go, and how far the engine has applied them. */
export interface VotesProgress {
  /** The `game.votes` partition of a message key (`votesKey`: a tournament's vote slot). */
  partitionOf(votesKey: string): Promise<number>;
  endOffset(partition: number): Promise<string>;
  applied(partition: number): Promise<bigint>;
  /**
   * Applies the partition's votes from `from` up to `to` itself, reading the partition outside
   * the votes consumer's group: what a close does when the consumer that owns the partition went
   * silent (killed, frozen) and the group has not handed it over yet (issue 35). Each vote is
   * applied once by its id, so the owner applying the same votes later changes nothing.
   */
  applyBehind(partition: number, from: bigint, to: bigint): Promise<void>;
}

export interface RunnerDependencies {
  live: LiveGames;
  events: GameEventsPublisher;
  records: GameRecords;
  ads: AdsCatalog;
  votes: VotesProgress;
  timings: GameTimings;
  lease: { ttlMs: number; renewEveryMs: number };
  /**
   * How long a lagging partition's applied mark may stand still, while a close waits on it,
   * before the close applies the votes itself (`VotesProgress.applyBehind`).
   */
  votesStandStillMs: number;
  /**
   * How long a round's capture waits for a votes partition's leader to tell the partition's end
   * before it takes where the round's acknowledged votes end instead (`captureVotes`).
   */
  captureLeaderWaitMs: number;
  /**
   * How long past its grace a round's close may wait for votes cast in time that could not be
   * recorded (`maxMs`), and how long it still waits once its votes partitions have leaders again
   * (`settleMs`: a produce in flight during the election times out, its vote then held) —
   * `closeHold`, docs/adr/0009 (7).
   */
  closeHold: { maxMs: number; settleMs: number };
  /** This replica's name, the lease owner. */
  owner: string;
  /** The engine's time source; it measures in ms since the epoch (`now()` below). */
  clock: Clock;
  logger: Logger;
  metrics: EngineMetrics;
}

/** What a step answers: look again in this many ms, or the game is done. */
export type Step = number | 'done';

/** Where a stored step left the game: its announcement belongs there and nowhere else. */
export type Landing = { phase: GameState['phase']; round: number };

/**
 * One game's runner as its steps see it (`GameRunner` makes it): the game, the fence every write
 * carries, its events, its records and what the loop remembers. A step reads the state it is
 * given, makes one fenced write and announces what it stored.
 */
export interface StepContext {
  readonly tournamentId: string;
  readonly deps: RunnerDependencies;
  readonly log: Logger;
  readonly records: RecordsWriter;
  /** The runner's wait for a round's votes, in the metrics and the logs. */
  readonly votesWait: VotesWait;
  /** The engine's time in ms since the epoch, the unit of the stored deadlines. */
  now(): number;
  /** A fenced step; false when the game already moved on (another step won). */
  advance(expected: Expectation, fields: Record<string, string | number>): Promise<boolean>;
  /**
   * Sends `userIds` out in `at.round`, fenced on the step the game stands `at`, in steps of at
   * most 10,000 ids; false when the game already moved on.
   */
  eliminate(at: Landing, userIds: readonly string[]): Promise<boolean>;
  /** Publishes a game event with a deterministic id (the game's, `idSuffix`), dated `at`. */
  emit(state: GameState, kind: GameEventKind, idSuffix: string, at?: number): Promise<void>;
  /**
   * What follows a stored step (its events, offline choices): made again before anything else
   * if it fails while the game still stands where the step `at` left it.
   */
  announce(at: Landing, announcement: () => Promise<void>): Promise<void>;
  /** Changes what the loop remembers between steps (see `nextStep`). */
  remember(change: Partial<LoopMemory>): void;
}
