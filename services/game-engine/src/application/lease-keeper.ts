import type { Logger } from '@underdog/kit';

/** The lease's port: the live store's fenced lease on a game (ADR 7). */
export interface GameLease {
  /** The lease's token (its fence), renewed or taken; 0 when another replica holds it. */
  acquireLease(tournamentId: string, owner: string, ttlMs: number): Promise<number>;
  releaseLease(tournamentId: string, owner: string, token: number): Promise<unknown>;
}

/** Thrown when a fenced step finds another replica's token: this replica must stop acting. */
export class LeaseLost extends Error {}

/**
 * One game's lease held by this replica: taken or renewed before each step, renewed every
 * `renewEveryMs` while a step runs, given up on a clean stop. `token` is the fence every
 * step's write carries.
 */
export class LeaseKeeper {
  /** The fence of the lease last taken or renewed (0: never held). */
  token = 0;

  constructor(
    private readonly lease: GameLease,
    private readonly tournamentId: string,
    private readonly owner: string,
    private readonly timing: { ttlMs: number; renewEveryMs: number },
    private readonly log: Logger,
  ) {}

  /** Takes or renews the lease: false when another replica holds it. */
  async acquire(): Promise<boolean> {
    const token = await this.lease.acquireLease(this.tournamentId, this.owner, this.timing.ttlMs);
    if (token === 0) return false;
    if (token !== this.token && this.token !== 0) this.log.warn({ fence: token }, 'lease renewed');
    this.token = token;
    return true;
  }

  /**
   * Runs a step while renewing the lease every `renewEveryMs`: a step may outlast the lease's
   * TTL (the end writes the whole game's records when this replica took it over; a slow
   * document store), and the other replica must not take the game over and repeat it meanwhile
   * (issue 29). A renewal that finds another replica's lease fails the step with `LeaseLost`
   * once the work returns, as a fenced write would.
   */
  async holding<T>(work: () => Promise<T>): Promise<T> {
    let lost = false;
    let renewing: Promise<void> = Promise.resolve();
    const timer = setInterval(() => {
      renewing = renewing.then(async () => {
        if (lost) return;
        try {
          const token = await this.lease.acquireLease(
            this.tournamentId,
            this.owner,
            this.timing.ttlMs,
          );
          if (token === 0) lost = true;
          else this.token = token;
        } catch (error) {
          // The store unreachable: the step's own writes fail too; the lease may lapse.
          this.log.warn({ err: error }, 'lease not renewed during a step');
        }
      });
    }, this.timing.renewEveryMs);
    try {
      const result = await work();
      if (lost) throw new LeaseLost();
      return result;
    } finally {
      clearInterval(timer);
      await renewing;
    }
  }

  /** Gives the lease up, so another replica takes the game over at once. */
  async release(): Promise<void> {
    if (this.token === 0) return;
    await this.lease
      .releaseLease(this.tournamentId, this.owner, this.token)
      .catch((error: unknown) => this.log.warn({ err: error }, 'lease not released'));
  }
}
