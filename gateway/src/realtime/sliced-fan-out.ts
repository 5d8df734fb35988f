/**
 * Delivers broadcasts to many sockets a slice at a time, yielding to the event loop between
 * slices, so the votes and other I/O that arrive during a broadcast to 10,000 sockets wait for
 * one slice (a few milliseconds), not for the whole broadcast (docs/benchmarks.md).
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
  }> = [];
  private running = false;

  constructor(
    /** Targets served per turn of the event loop. */
    private readonly sliceSize: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Queues one broadcast; `targets` is copied by the caller if it may change meanwhile. */
  push(targets: readonly T[], deliver: (target: T) => void): void {
    if (targets.length === 0) return;
    this.jobs.push({ targets, deliver, next: 0 });
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
    while (budget > 0) {
      const job = this.jobs[0];
      if (!job) break;
      const end = Math.min(job.targets.length, job.next + budget);
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
      if (job.next >= job.targets.length) this.jobs.shift();
    }
    if (this.jobs.length > 0) setImmediate(this.runSlice);
    else this.running = false;
  };
}
