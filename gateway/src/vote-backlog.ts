import { performance } from 'node:perf_hooks';
import type { EventBus } from '@underdog/bus';
import type { Logger, Registry } from '@underdog/kit';
import { votesProgressKey } from '@underdog/live-game';
import { topics } from '@underdog/platform';
import type { LiveStore } from '@underdog/store';
import { Counter, Gauge, type Metric } from 'prom-client';
import { withStoreTimeout } from './store-unavailable';

/**
 * Back-pressure on `game.votes` (issue 35): a round's close waits until the engine applied every
 * acknowledged vote (ADR 9), so the backlog of a partition at the deadline is what delays the
 * results. The rule is a ceiling on that backlog in messages: `maxMessages` is what the engine
 * applies within the grace (≈ 2,500 votes/s per engine by docs/capacity.md, times the 1 s
 * grace). A vote that would take the backlog past it is refused before it is produced.
 */
export interface VoteBacklogSettings {
  /** Votes on a partition not yet applied at which new votes are refused (≥ 1). */
  maxMessages: number;
  /** How old the partition's read lag may get before a vote starts a new read, ms. */
  refreshMs: number;
  /** How long one read (the partition's end, the applied mark) may take, ms. */
  readTimeoutMs?: number;
}

/** The default of `VoteBacklogSettings.refreshMs` (VOTE_APPLY_LAG_REFRESH_MS). */
export const DEFAULT_VOTE_APPLY_LAG_REFRESH_MS = 250;

export interface VoteBacklogDependencies {
  store: LiveStore;
  bus: EventBus;
  registry: Registry;
  logger: Logger;
  /** A monotonic clock in ms; default `performance.now`. */
  now?: () => number;
}

/** A place in a partition's backlog, held by one vote from before its produce until it landed. */
export interface BacklogPlace {
  /** The produce completed (or gave up): the vote is on the partition or never will be. */
  landed(): void;
  /** The vote ends without a produce (refused, a resend): its place is freed. No-op once landed. */
  done(): void;
}

function metric<T extends Metric>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

/**
 * The back-pressure's metrics. Registered by every gateway, with back-pressure on or off, so the
 * dashboard's panels and the alerts always find them (off: no lag read, no refusal counted).
 * `collect` reads stale partitions again at a scrape: without votes the last read would stand,
 * and an idle gateway would keep reporting a drained backlog.
 */
export function backlogMetrics(
  registry: Registry,
  collect?: () => void | Promise<void>,
): { lag: Gauge<'partition'>; refusals: Counter } {
  const lag = metric(
    registry,
    'underdog_votes_apply_lag_messages',
    () =>
      new Gauge({
        name: 'underdog_votes_apply_lag_messages',
        help: 'Votes on a game.votes partition not yet applied by the engine (end offset − applied mark), as this gateway last read them',
        labelNames: ['partition'],
        registers: [registry],
        ...(collect && { collect }),
      }),
  );
  const refusals = metric(
    registry,
    'underdog_votes_backpressure_refusals_total',
    () =>
      new Counter({
        name: 'underdog_votes_backpressure_refusals_total',
        help: 'Votes answered VOTE_NOT_RECORDED before they were produced: their partition held more unapplied votes than the engine applies within the grace',
        registers: [registry],
      }),
  );
  return { lag, refusals };
}

/**
 * One partition's backlog as this gateway knows it: the lag it last read (end offset − applied
 * mark), plus its own votes produced since that read began and those in flight. The estimate
 * never falls below the true backlog of its own votes: the mark only rises, and every vote of
 * this gateway not in the read is counted locally (some twice, which errs towards refusing).
 */
class PartitionBacklog {
  read = 0;
  readStartedAt = Number.NEGATIVE_INFINITY;
  inFlight = 0;
  landedSinceRead = 0;
  landedSinceNextRead = 0;
  refreshing: Promise<void> | undefined;

  get estimate(): number {
    return this.read + this.inFlight + this.landedSinceRead;
  }
}

/**
 * The apply lag of the `game.votes` partitions, read at most once every `refreshMs` per
 * partition and shared by every vote (one `endOffset` and one `GET` of the mark per read, never
 * one per vote). A vote waits for a read only when its partition was never read; after that it
 * is judged by the last read plus this gateway's own votes since, while a new read runs behind.
 */
export class VoteBacklog {
  private readonly now: () => number;
  private readonly readTimeoutMs: number;
  private readonly partitions = new Map<number, PartitionBacklog>();
  private readonly partitionOfKey = new Map<string, number>();
  private readonly lag: Gauge<'partition'>;
  private readonly refusals: Counter;

  constructor(
    private readonly settings: VoteBacklogSettings,
    private readonly deps: VoteBacklogDependencies,
  ) {
    this.now = deps.now ?? (() => performance.now());
    this.readTimeoutMs = settings.readTimeoutMs ?? 1_500;
    ({ lag: this.lag, refusals: this.refusals } = backlogMetrics(deps.registry, () =>
      this.refreshStale(),
    ));
  }

  /**
   * A place in the backlog of the partition of `votesKey` (the vote's message key: its
   * tournament's vote slot, docs/adr/0012) for a vote about to be produced, or `undefined` when
   * the backlog is full (the vote must be refused, retryably).
   */
  async place(votesKey: string): Promise<BacklogPlace | undefined> {
    let partition: number;
    try {
      partition = await this.partitionOf(votesKey);
    } catch (error) {
      // The bus has no metadata (brokers unreachable): the produce answers for the vote.
      this.deps.logger.warn({ err: error, votesKey }, 'votes partition not known');
      return { landed: () => undefined, done: () => undefined };
    }
    let backlog = this.partitions.get(partition);
    if (!backlog) {
      backlog = new PartitionBacklog();
      this.partitions.set(partition, backlog);
    }
    if (this.now() - backlog.readStartedAt >= this.settings.refreshMs) {
      const reading = backlog.refreshing ?? this.refresh(partition, backlog);
      // Never read: this vote (and any other meanwhile) waits for the first read.
      if (backlog.readStartedAt === Number.NEGATIVE_INFINITY) await reading;
    }
    if (backlog.estimate + 1 > this.settings.maxMessages) {
      this.refusals.inc();
      return undefined;
    }
    const held = backlog;
    held.inFlight += 1;
    let open = true;
    const free = (landed: boolean) => {
      if (!open) return;
      open = false;
      held.inFlight -= 1;
      if (landed) {
        held.landedSinceRead += 1;
        held.landedSinceNextRead += 1;
      }
    };
    return { landed: () => free(true), done: () => free(false) };
  }

  private async refreshStale(): Promise<void> {
    await Promise.all(
      [...this.partitions]
        .filter(([, backlog]) => this.now() - backlog.readStartedAt >= this.settings.refreshMs)
        .map(([partition, backlog]) => backlog.refreshing ?? this.refresh(partition, backlog)),
    );
  }

  private async partitionOf(votesKey: string): Promise<number> {
    const known = this.partitionOfKey.get(votesKey);
    if (known !== undefined) return known;
    const partition = await this.deps.bus.partitionOf(topics.gameVotes.name, votesKey);
    // A handful of live tournaments' slots at a time; forget them all rather than grow unbounded.
    if (this.partitionOfKey.size >= 1_000) this.partitionOfKey.clear();
    this.partitionOfKey.set(votesKey, partition);
    return partition;
  }

  private refresh(partition: number, backlog: PartitionBacklog): Promise<void> {
    const startedAt = this.now();
    backlog.landedSinceNextRead = 0;
    const reading = (async () => {
      try {
        const [end, mark] = await withStoreTimeout(
          Promise.all([
            this.deps.bus.endOffset(topics.gameVotes.name, partition),
            this.deps.store.get(votesProgressKey(partition)),
          ]),
          this.readTimeoutMs,
          'reading the votes apply lag',
        );
        const lag = BigInt(end) - BigInt(mark ?? 0);
        backlog.read = lag > 0n ? Number(lag) : 0;
        backlog.landedSinceRead = backlog.landedSinceNextRead;
        this.lag.set({ partition: String(partition) }, backlog.read);
      } catch (error) {
        // Not a reason to refuse: the produce and the store steps of the vote say whether Kafka
        // or Redis answer. The last read stands (0 if none) until the next one.
        this.deps.logger.warn({ err: error, partition }, 'votes apply lag not read');
      } finally {
        backlog.readStartedAt = startedAt;
        backlog.refreshing = undefined;
      }
    })();
    backlog.refreshing = reading;
    return reading;
  }
}
