import type { RealtimeLimits } from '../ports';
import type { GameEventView } from '../views';

/**
 * A held-back live total goes this long after its window ends, unless a newer total comes
 * meanwhile and goes in its place: the engine publishes once a second, so at the window's end a
 * fresh total is usually a few milliseconds away, and the one held back is a second old.
 */
const pendingTotalSlackMs = 250;

export interface TournamentLaneOptions {
  limits: Pick<
    RealtimeLimits,
    | 'voteTotalCoalesceAbove'
    | 'voteTotalCoalescedEveryMs'
    | 'voteTotalSpreadMs'
    | 'endOfRoundLingerMs'
  >;
  /** The tournament's subscribers now, all channels. */
  audience: () => number;
  /** These events (in order) to every subscriber, in one write per socket. */
  broadcast: (views: readonly GameEventView[], spreadMs: number) => Promise<void>;
  onError: (error: unknown) => void;
}

/**
 * One tournament's game events on their way: the live total held back for a large audience
 * (`pendingTotal`, sent by `totalTimer` or with the next step of the game), a `round_completed`
 * waiting for the event that follows it (`grouped`), and the broadcasts in the order they were
 * decided (`enqueue`: an encoding may await, a later event must not overtake it).
 */
export class TournamentLane {
  /** When the last live total went out (ms since the epoch; 0: none yet). */
  private lastTotalAt = 0;
  private pendingTotal: GameEventView | undefined;
  private totalTimer: NodeJS.Timeout | undefined;
  private grouped: GameEventView[] = [];
  private groupTimer: NodeJS.Timeout | undefined;
  /** Resolves once every broadcast enqueued so far is queued for its sockets. */
  private settled: Promise<void> = Promise.resolve();

  constructor(private readonly options: TournamentLaneOptions) {}

  /**
   * A game event of this tournament. The live total is coalesced for a large audience
   * (`voteTotalCoalesceAbove`) and a `round_completed` waits briefly for the next step's event
   * (`endOfRoundLingerMs`). Events reach the sockets in the order they came, whatever waited.
   */
  event(view: GameEventView): Promise<void> {
    const { limits } = this.options;
    const now = Date.now();
    if ('recipientUserId' in view) {
      // For one player's sockets: after what waits, alone.
      this.flush(now);
      return this.enqueue(() => this.options.broadcast([view], 0));
    }
    if (view.type === 'VoteTotal') {
      // Whatever waited goes first, then the total is the newest and waits (or goes) alone.
      if (this.grouped.length > 0) this.flush(now);
      const every =
        this.options.audience() > limits.voteTotalCoalesceAbove
          ? limits.voteTotalCoalescedEveryMs
          : 0;
      if (now - this.lastTotalAt >= every) {
        this.pendingTotal = undefined;
        this.clearTotalTimer();
        this.lastTotalAt = now;
        return this.enqueue(() => this.options.broadcast([view], limits.voteTotalSpreadMs));
      }
      this.pendingTotal = view;
      this.totalTimer ??= setTimeout(
        () => {
          this.totalTimer = undefined;
          const pending = this.pendingTotal;
          if (!pending) return;
          this.pendingTotal = undefined;
          this.lastTotalAt = Date.now();
          void this.enqueue(() => this.options.broadcast([pending], limits.voteTotalSpreadMs));
        },
        this.lastTotalAt + every - now + pendingTotalSlackMs,
      );
      return this.settled;
    }
    // Any other step of the game: the total that waited goes with it, in the same write, so
    // the last total before the close always reaches the players.
    const views = this.takeWaiting(now);
    views.push(view);
    const linger = limits.endOfRoundLingerMs;
    if (view.type === 'RoundCompleted' && linger > 0) {
      this.grouped = views;
      this.groupTimer = setTimeout(() => {
        this.groupTimer = undefined;
        this.flush(Date.now());
      }, linger);
      return this.settled;
    }
    return this.enqueue(() => this.options.broadcast(views, 0));
  }

  /** Nothing more goes out (no subscribers left, or the core is closing). */
  stop(): void {
    this.clearTotalTimer();
    if (this.groupTimer) clearTimeout(this.groupTimer);
    this.groupTimer = undefined;
    this.grouped = [];
    this.pendingTotal = undefined;
  }

  /** What waits (the grouped events, then the pending total), taken out of the lane. */
  private takeWaiting(now: number): GameEventView[] {
    const views = this.grouped;
    this.grouped = [];
    if (this.groupTimer) clearTimeout(this.groupTimer);
    this.groupTimer = undefined;
    if (this.pendingTotal) {
      views.push(this.pendingTotal);
      this.pendingTotal = undefined;
      this.lastTotalAt = now;
    }
    this.clearTotalTimer();
    return views;
  }

  /** Sends what waits at once, in one write per socket. */
  private flush(now: number): void {
    const views = this.takeWaiting(now);
    if (views.length > 0) void this.enqueue(() => this.options.broadcast(views, 0));
  }

  private enqueue(broadcast: () => Promise<void>): Promise<void> {
    this.settled = this.settled.then(broadcast).catch(this.options.onError);
    return this.settled;
  }

  private clearTotalTimer(): void {
    if (this.totalTimer) clearTimeout(this.totalTimer);
    this.totalTimer = undefined;
  }
}
