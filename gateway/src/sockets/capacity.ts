import type { Logger } from '@underdog/kit';
import type { Counter } from 'prom-client';

/**
 * The process's open sockets against its capacity, and the episodes of refusals: one begins with
 * the first refusal (a warning) and ends once none came for twice the retry time, which every
 * waiting client's retry (N s ± its jitter) falls within (one info line with the count). A
 * refused socket is closed by the capacity's close contract (`full-close.ts`).
 */
export class FullEpisodes {
  private open = 0;
  private episode: { since: number; refused: number; quiet: NodeJS.Timeout } | undefined;
  private readonly capacity: number;
  private readonly retrySeconds: number;

  constructor(
    options: { capacity: number; fullRetrySeconds: number },
    private readonly logger: Logger,
    private readonly counter: Counter<'reason'>,
  ) {
    this.capacity = options.capacity;
    this.retrySeconds = options.fullRetrySeconds;
  }

  acquire(): boolean {
    if (this.capacity > 0 && this.open >= this.capacity) return false;
    this.open += 1;
    return true;
  }

  release(): void {
    this.open = Math.max(0, this.open - 1);
  }

  refused(): void {
    this.counter.inc({ reason: 'capacity' });
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
      { capacity: this.capacity, open: this.open, retrySeconds: this.retrySeconds },
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
        open: this.open,
        refused: episode.refused,
        durationMs: Date.now() - episode.since,
      },
      'websocket refusals ended',
    );
  }
}
