import { batchConsumer, type BusMessage, type EventBus } from '@underdog/bus';
import { systemClock, type Clock, type Component, type Logger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  EventHeader,
  GameEventSchema,
  TournamentLifecycleEventSchema,
  fromBinary,
} from '@underdog/proto';
import type { TournamentView } from '../tournaments';
import {
  toGameEventView,
  toTournamentChange,
  type GameEventView,
  type TournamentChange,
} from './views';

/**
 * The fan-out: told once per event, it encodes once per channel and writes to each local
 * subscriber. The gateway registers one, the real-time core both protocols share (ADR 10).
 */
export interface RealtimeListener {
  gameEvent(view: GameEventView): void | Promise<void>;
  tournamentChange(change: TournamentChange, list: TournamentView[] | null): void | Promise<void>;
}

export interface RealtimeHubOptions {
  bus: EventBus;
  logger: Logger;
  /** This replica's id: the consumer group is `gateway-<instanceId>`, so every replica gets all. */
  instanceId: string;
  /** The tournament list after a change (one call per batch of lifecycle events). */
  listTournaments: () => Promise<TournamentView[]>;
  /** The server clock the views measure time left by; default: the system clock. */
  clock?: Clock;
}

/** How many recent event ids are remembered to drop a redelivered batch's repeats. */
const rememberedEventIds = 4096;

/**
 * Every gateway replica consumes `game.events` and `tournament.lifecycle` in a group of its own
 * and hands each event, mapped once to its client view, to its listener(s). Nothing
 * is kept per event: a replica that starts late begins with the next event, and a client
 * catches up from the snapshot it gets on subscribing.
 */
export class RealtimeHub {
  private readonly listeners: RealtimeListener[] = [];
  private readonly recentIds = new Set<string>();
  /** The tournament changes on their way to the listeners (see `handleBatch`). */
  private changesQueue: Promise<void> = Promise.resolve();
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(private readonly options: RealtimeHubOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger.child({ component: 'realtime-hub' });
  }

  get groupId(): string {
    return `gateway-${this.options.instanceId}`;
  }

  addListener(listener: RealtimeListener): void {
    this.listeners.push(listener);
  }

  /**
   * The consumer as a lifecycle component: joins its group on start, leaves on stop. Not an
   * `eventConsumer`: it reads two topics in one group (so a tournament's game events and
   * lifecycle changes reach its listeners in one loop), drops redelivered event ids and never
   * throws, so it keeps its own batch loop under the bus's `batchConsumer`.
   */
  component(): Component {
    return batchConsumer(this.options.bus, {
      name: 'realtime-consumer',
      groupId: this.groupId,
      topics: [topics.gameEvents.name, topics.tournamentLifecycle.name],
      // A new group: only what happens from now on; the snapshot covers the past.
      fromBeginning: false,
      handleBatch: (batch) => this.handleBatch(batch),
    });
  }

  /** One partition's messages, in order. Never throws: a bad event is logged and skipped. */
  async handleBatch(batch: BusMessage[]): Promise<void> {
    const changes: TournamentChange[] = [];
    for (const message of batch) {
      if (!message.value || this.seen(message)) continue;
      try {
        if (message.topic === topics.gameEvents.name) {
          const view = toGameEventView(
            fromBinary(GameEventSchema, message.value),
            this.clock.now(),
          );
          if (view) await this.toEach((listener) => listener.gameEvent(view));
        } else if (message.topic === topics.tournamentLifecycle.name) {
          const change = toTournamentChange(
            fromBinary(TournamentLifecycleEventSchema, message.value),
          );
          if (change) changes.push(change);
        }
      } catch (error) {
        this.logger.warn(
          { err: error, topic: message.topic, offset: message.offset },
          'undecodable real-time event skipped',
        );
      }
    }
    if (changes.length === 0) return;
    // The list comes from the tournament service. While that service is away (restarting at a
    // tournament's start time), the read waits for its deadline: game events must not wait
    // behind it (round 1 once reached the players as it closed). So tournament changes go out on
    // a queue of their own, in order, and the batch goes on at once.
    this.changesQueue = this.changesQueue.then(() => this.deliverChanges(changes));
  }

  /** Resolves once every tournament change handed over so far has reached the listeners. */
  changesDelivered(): Promise<void> {
    return this.changesQueue;
  }

  private async deliverChanges(changes: TournamentChange[]): Promise<void> {
    const list = await this.options.listTournaments().catch((error: unknown) => {
      this.logger.warn({ err: error }, 'could not read the tournament list after a change');
      return null;
    });
    for (const change of changes) {
      await this.toEach((listener) => listener.tournamentChange(change, list));
    }
  }

  private async toEach(deliver: (listener: RealtimeListener) => void | Promise<void>) {
    for (const listener of this.listeners) {
      try {
        await deliver(listener);
      } catch (error) {
        this.logger.error({ err: error }, 'a real-time listener failed');
      }
    }
  }

  /** At-least-once delivery: a batch delivered again must not reach the clients twice. */
  private seen(message: BusMessage): boolean {
    const id = message.headers[EventHeader.id];
    if (!id) return false;
    if (this.recentIds.has(id)) return true;
    this.recentIds.add(id);
    if (this.recentIds.size > rememberedEventIds) {
      const oldest = this.recentIds.values().next().value;
      if (oldest !== undefined) this.recentIds.delete(oldest);
    }
    return false;
  }
}
