import type { Clock, Logger } from '@underdog/kit';

/** How many times a record write is tried again, a second apart, before it gives up. */
const RECORD_RETRIES = 5;
const RECORD_RETRY_MS = 1_000;

/**
 * One game's record writes (the port `GameRecords` behind them), in the background and in
 * order: the round loop never waits for MongoDB, and a round's eliminations never reach the
 * store before its participants. Each write starts `delayMs` after it was asked for, when the
 * games closing at the same moment on this replica have resolved (see `GameTimings`).
 */
export class RecordsWriter {
  /** Record writes in order (the start before round 1's results), each after the one before. */
  private written: Promise<void> = Promise.resolve();
  /** Ends the wait of the record write now waiting for its delay (see `flush`). */
  private readonly delays = new Set<() => void>();
  private flushing = false;
  /** The game's start record, written once round 1's results are out (see `recordStart`). */
  private startRecord: ((eliminatedInRound1: readonly string[]) => Promise<void>) | undefined;
  /** This writer asked for the game's start record: every record since is its own. */
  private sinceStart = false;
  /** A record write gave up: the game's end writes the whole game again. */
  private incomplete = false;

  constructor(
    private readonly delayMs: number,
    private readonly log: Logger,
    /** The engine's clock: a write is due `delayMs` after it was asked for by it. */
    private readonly clock: Clock,
  ) {}

  /** Queues a write: after the ones before, `delayMs` after now, tried again on failure. */
  record(what: string, write: () => Promise<void>): void {
    const due = this.clock.now().getTime() + this.delayMs;
    const attempt = async (left: number): Promise<void> => {
      try {
        await write();
      } catch (error) {
        if (left <= 0) {
          this.log.error({ err: error, what }, 'could not record game facts');
          this.incomplete = true;
          return;
        }
        // Once per write: an outage of the store shows in the log when it starts, not only
        // when a write gives up.
        if (left === RECORD_RETRIES) {
          this.log.warn(
            { err: error, what, retries: RECORD_RETRIES, retryInMs: RECORD_RETRY_MS },
            'a game record write failed; trying again',
          );
        }
        await new Promise((resolve) => setTimeout(resolve, RECORD_RETRY_MS));
        await attempt(left - 1);
      }
    };
    this.written = this.written.then(async () => {
      const wait = due - this.clock.now().getTime();
      if (wait > 0 && !this.flushing) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            this.delays.delete(done);
            resolve();
          };
          const timer = setTimeout(done, wait);
          this.delays.add(done);
        });
      }
      await attempt(RECORD_RETRIES);
    });
  }

  /** Keeps the game's start record until round 1's results (see `recordStart`). */
  holdStart(write: (eliminatedInRound1: readonly string[]) => Promise<void>): void {
    this.startRecord = write;
  }

  /** The game's start record, once round `round`'s results (those eliminated in it) are out. */
  recordStart(round: number, eliminated: () => Promise<readonly string[]>): void {
    const write = this.startRecord;
    this.startRecord = undefined;
    if (!write) return;
    this.sinceStart = true;
    this.record('gameStarted', async () => write(round === 1 ? await eliminated() : []));
  }

  /** Every record of the game is this writer's, none gave up: the end adds only its own. */
  get complete(): boolean {
    return this.sinceStart && !this.incomplete;
  }

  /**
   * Writes the records still waiting for their delay at once, and resolves when every write
   * asked for so far is done: a replica that stops cleanly leaves no record behind.
   */
  async flush(): Promise<void> {
    this.flushing = true;
    for (const done of [...this.delays]) done();
    await this.written;
  }

  /** Resolves when every record write asked for so far is done (delays included). */
  done(): Promise<void> {
    return this.written;
  }
}
