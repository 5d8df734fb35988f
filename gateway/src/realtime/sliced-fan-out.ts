/**
 * Delivers broadcasts to many sockets a slice at a time, yielding to the event loop between
 * slices, so the votes and other I/O that arrive during a broadcast to 10,000 sockets wait for
 * one slice (a few milliseconds), not for the whole broadcast (docs/benchmarks.md).
 *
 * A broadcast that is news, not a step of the game (the live vote total, superseded a second
 * later), may be **paced**: spread over a window in turns of at least `pacedTurnMin` sockets,
 * `pacedGapMs` apart, instead of as fast as the cores go. Its burst of socket writes then no
 * longer takes both cores from the votes arriving meanwhile (two tournaments' totals at the same
 * moment doubled the acknowledgement tail of both, docs/benchmarks.md).
 *
 * Broadcasts are delivered in the order they were pushed, each to all its targets before the
 * next one starts: a socket sees the messages in the order the events happened. The first slice
 * goes out at once when nothing is queued, so a small audience is served synchronously.
 */
export class SlicedFanOut<T> {
  private readonly jobs: Array<{
    targets: readonly T[];
    deliver: (target: T) => void;
    next: number;
    /** Targets per turn (the slice size, or fewer when paced). */
    perTurn: number;
    /** The pause after each turn of a paced broadcast (0: the next turn of the event loop). */
    gapMs: number;
  }> = [];
  private running = false;

  constructor(
    /** Targets served per turn of the event loop. */
    private readonly sliceSize: number,
    private readonly onError: (error: unknown) => void,
    /** A paced broadcast's turns: at least this many targets each... */
    private readonly pacedTurnMin = 50,
    /** ...and about this far apart (ms). */
    private readonly pacedGapMs = 10,
  ) {}

  /**
   * Queues one broadcast; `targets` is copied by the caller if it may change meanwhile. With
   * `spreadMs`, the broadcast is paced over about that long (see the class).
   */
  push(targets: readonly T[], deliver: (target: T) => void, spreadMs = 0): void {
    if (targets.length === 0) return;
    let perTurn = this.sliceSize;
    let gapMs = 0;
    if (spreadMs > 0) {
      const turns = Math.max(1, Math.floor(spreadMs / this.pacedGapMs));
      perTurn = Math.min(
        this.sliceSize,
        Math.max(this.pacedTurnMin, Math.ceil(targets.length / turns)),
      );
      gapMs = spreadMs / Math.ceil(targets.length / perTurn);
    }
    this.jobs.push({ targets, deliver, next: 0, perTurn, gapMs });
    if (!this.running) {
      this.running = true;
      this.runSlice();
    }
  }

  /** Broadcasts not yet fully delivered (tests and diagnostics). */
  get queued(): number {
    return this.jobs.length;
  }

  /** Drops what is still queued (the endpoint is closing). */
  clear(): void {
    this.jobs.length = 0;
  }

  private readonly runSlice = (): void => {
    let budget = this.sliceSize;
    let pause = 0;
    while (budget > 0) {
      const job = this.jobs[0];
      if (!job) break;
      const end = Math.min(job.targets.length, job.next + Math.min(budget, job.perTurn));
      budget -= end - job.next;
      while (job.next < end) {
        const target = job.targets[job.next] as T;
        job.next += 1;
        try {
          job.deliver(target);
        } catch (error) {
          this.onError(error);
        }
      }
      if (job.next >= job.targets.length) {
        this.jobs.shift();
      } else if (job.gapMs > 0) {
        pause = job.gapMs;
        break;
      }
    }
    if (this.jobs.length === 0) this.running = false;
    else if (pause > 0) setTimeout(this.runSlice, pause);
    else setImmediate(this.runSlice);
  };
}
