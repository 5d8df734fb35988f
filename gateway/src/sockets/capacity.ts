import type { Logger } from '@underdog/kit';
import type { Counter } from 'prom-client';
import type { WebSocket } from 'ws';
import { closeAsFull } from './full-close';

/**
 * Who a socket speaks for, as far as the room goes: a `player` (its upgrade carried a session
 * the auth service knows) or a `visitor` (no session, an unknown one, or auth did not answer).
 */
export type Guest = 'player' | 'visitor';

/** One socket's place in the room, from its admission until its connection closes. */
export class Place {
  /** The socket, once the handshake is done. */
  ws: WebSocket | undefined;
  /** Closed to make room for a player (1013). */
  evicted = false;
  left = false;

  constructor(readonly guest: Guest) {}
}

export interface WaitingRoomOptions {
  /** Open sockets on both endpoints together; 0 is no cap (and no share). */
  capacity: number;
  /** The part of `capacity` visitors may hold (0 to 1): at least one when it is above 0. */
  visitorShare: number;
  /** The N of `Server full; retry in N s`. */
  fullRetrySeconds: number;
}

/**
 * The process's open sockets against its capacity: a waiting room for players, not strangers.
 *
 * Visitors (sockets without a session) hold at most `visitorShare` of the capacity: past it a
 * visitor's socket is closed as full (1013, `full-close.ts`), so idle strangers from any number
 * of addresses cannot fill the room. A player is admitted while the room has a free place; when
 * it is full, the oldest visitor's socket is closed as full (it retries after N s like anyone
 * turned away) and the player takes its place. Only a room full of players turns a player away.
 * Sockets already open are otherwise never touched.
 */
export class WaitingRoom {
  private open = 0;
  /** Visitors' places, oldest first (a Set keeps insertion order). */
  private readonly visitors = new Set<Place>();
  private readonly visitorCapacity: number;

  constructor(
    private readonly options: WaitingRoomOptions,
    private readonly evictions: Counter,
  ) {
    this.visitorCapacity =
      options.capacity > 0 && options.visitorShare > 0
        ? Math.ceil(options.capacity * options.visitorShare)
        : options.capacity > 0
          ? 0
          : Number.POSITIVE_INFINITY;
  }

  /** Whether admission needs to know who the socket speaks for (a session lookup). */
  get capped(): boolean {
    return this.options.capacity > 0;
  }

  /** How many sockets the room holds now (for the episode's log lines). */
  get size(): number {
    return this.open;
  }

  /**
   * A place for a new socket, or why there is none: `capacity` (full of players, or a
   * visitor finding the room full) or `visitors` (the visitors' share is taken).
   */
  enter(guest: Guest): Place | 'capacity' | 'visitors' {
    const { capacity } = this.options;
    if (guest === 'visitor') {
      if (capacity > 0 && this.open >= capacity) return 'capacity';
      if (this.visitors.size >= this.visitorCapacity) return 'visitors';
    } else if (capacity > 0 && this.open >= capacity) {
      const oldest = this.visitors.values().next();
      if (oldest.done) return 'capacity';
      this.evict(oldest.value);
    }
    const place = new Place(guest);
    this.open += 1;
    if (guest === 'visitor') this.visitors.add(place);
    return place;
  }

  /** The handshake is done: a place evicted meanwhile is closed as full at once. */
  seated(place: Place, ws: WebSocket): void {
    place.ws = ws;
    if (place.evicted) closeAsFull(ws, this.options.fullRetrySeconds);
  }

  /** The socket's connection closed (or it was evicted): its place is free. Idempotent. */
  leave(place: Place): void {
    if (place.left) return;
    place.left = true;
    this.open = Math.max(0, this.open - 1);
    this.visitors.delete(place);
  }

  private evict(place: Place): void {
    this.leave(place);
    place.evicted = true;
    this.evictions.inc();
    if (place.ws) closeAsFull(place.ws, this.options.fullRetrySeconds);
  }
}

/**
 * The episodes of refusals: one begins with the first refusal (a warning) and ends once none
 * came for twice the retry time, which every waiting client's retry (N s ± its jitter) falls
 * within (one info line with the count). A refused socket is closed by the capacity's close
 * contract (`full-close.ts`).
 */
export class FullEpisodes {
  private episode: { since: number; refused: number; quiet: NodeJS.Timeout } | undefined;
  private readonly capacity: number;
  private readonly retrySeconds: number;

  constructor(
    options: { capacity: number; fullRetrySeconds: number },
    private readonly room: WaitingRoom,
    private readonly logger: Logger,
    private readonly counter: Counter<'reason'>,
  ) {
    this.capacity = options.capacity;
    this.retrySeconds = options.fullRetrySeconds;
  }

  /** One socket closed as full: `capacity` (the room) or `visitors` (the visitors' share). */
  refused(reason: 'capacity' | 'visitors'): void {
    this.counter.inc({ reason });
    if (this.episode) {
      this.episode.refused += 1;
      this.episode.quiet.refresh();
      return;
    }
    const quiet = setTimeout(() => this.end(), 2 * this.retrySeconds * 1000);
    quiet.unref();
    // Raw time is fine here: the episode's length is only logged, no rule depends on it.
    this.episode = { since: Date.now(), refused: 1, quiet };
    this.logger.warn(
      { capacity: this.capacity, open: this.room.size, retrySeconds: this.retrySeconds, reason },
      'websocket refused: gateway full',
    );
  }

  stop(): void {
    if (this.episode) clearTimeout(this.episode.quiet);
    this.episode = undefined;
  }

  private end(): void {
    const episode = this.episode;
    if (!episode) return;
    this.episode = undefined;
    this.logger.info(
      {
        capacity: this.capacity,
        open: this.room.size,
        refused: episode.refused,
        durationMs: Date.now() - episode.since,
      },
      'websocket refusals ended',
    );
  }
}
