import type { Component, Logger } from '@underdog/kit';
import type { LiveGames } from '../adapters/live-games';
import { timingsOfGame } from '../domain/timings';
import { GameRunner, type RunnerDependencies } from './game-runner';

/**
 * The games this replica runs. A game runs where its lease is: the replica that consumed the
 * tournament's `live` event takes it first; every replica sweeps the active games and takes over
 * any whose lease expired (its owner died or froze), so a game never waits for Kafka's session
 * timeout to continue.
 */
export class GameRunners {
  private readonly running = new Map<string, GameRunner>();
  /** Runners whose game is over here but whose records are still being written. */
  private readonly draining = new Set<GameRunner>();
  private sweeper: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(
    private readonly deps: RunnerDependencies,
    private readonly live: LiveGames,
    private readonly sweepEveryMs: number,
    private readonly logger: Logger,
  ) {}

  /** Runs the game here unless it already runs here or another replica holds its lease. */
  async ensureRunning(tournamentId: string): Promise<void> {
    if (this.stopping || this.running.has(tournamentId)) return;
    const token = await this.live.acquireLease(
      tournamentId,
      this.deps.owner,
      this.deps.lease.ttlMs,
    );
    if (token === 0 || this.stopping || this.running.has(tournamentId)) return;
    const roundTimeSeconds = (await this.live.state(tournamentId))?.roundTimeSeconds ?? 0;
    if (this.stopping || this.running.has(tournamentId)) return;
    const runner = new GameRunner(tournamentId, {
      ...this.deps,
      timings: timingsOfGame(this.deps.timings, roundTimeSeconds),
    });
    this.running.set(tournamentId, runner);
    this.deps.metrics.liveGames.set(this.running.size);
    this.logger.info({ tournamentId, token }, 'running the game here');
    void runner.finished.finally(() => {
      if (this.running.get(tournamentId) === runner) this.running.delete(tournamentId);
      this.deps.metrics.liveGames.set(this.running.size);
      this.draining.add(runner);
      void runner.recordsDone().finally(() => this.draining.delete(runner));
    });
  }

  /** The tournaments whose game runs here. */
  runningHere(): string[] {
    return [...this.running.keys()];
  }

  private async sweep(): Promise<void> {
    for (const tournamentId of await this.live.activeGames()) {
      await this.ensureRunning(tournamentId);
    }
  }

  component(): Component {
    return {
      name: 'game-runners',
      start: async () => {
        const tick = () => {
          this.sweeper = setTimeout(() => {
            this.sweep()
              .catch((error: unknown) => this.logger.warn({ err: error }, 'game sweep failed'))
              .finally(() => {
                if (!this.stopping) tick();
              });
          }, this.sweepEveryMs);
        };
        tick();
      },
      stop: async () => {
        this.stopping = true;
        clearTimeout(this.sweeper);
        // A clean stop hands the games over at once instead of after the lease expires,
        // and writes the records still waiting for their delay (GAME_RECORDS_DELAY_MS).
        const runners = new Set([...this.running.values(), ...this.draining]);
        await Promise.all([...this.running.values()].map((runner) => runner.stop(true)));
        this.running.clear();
        await Promise.all([...runners].map((runner) => runner.flushRecords()));
      },
    };
  }
}
