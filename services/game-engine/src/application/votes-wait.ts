import type { Logger } from '@underdog/kit';
import { votesWaitWarnings } from '../domain/round-loop';
import type { EngineMetrics } from '../metrics';

/**
 * One runner's wait for its round's votes, as operators see it: the rounds waiting
 * (`underdog_rounds_awaiting_votes`), how long each close waited (`underdog_votes_wait_seconds`),
 * and a warning after every `VOTES_WAIT_WARN_EVERY_MS` of waiting — not at every look.
 */
export class VotesWait {
  private waiting: { round: number; warnings: number } | undefined;
  /** Each lagging partition's applied mark as last seen, and since when it stands there. */
  private readonly marks = new Map<number, { applied: bigint; since: number }>();
  /** Partitions whose votes this runner is applying itself (`standsStill`), one read each. */
  private readonly reading = new Set<number>();

  constructor(
    private readonly metrics: EngineMetrics,
    private readonly log: Logger,
  ) {}

  /** Round `round`'s votes still lag after `waitedMs`. */
  lagging(round: number, waitedMs: number, facts: Record<string, string>): void {
    if (this.waiting?.round !== round) {
      this.end();
      this.waiting = { round, warnings: 0 };
      this.metrics.roundsAwaitingVotes.inc();
    }
    const warnings = votesWaitWarnings(waitedMs);
    if (warnings > this.waiting.warnings) {
      this.waiting.warnings = warnings;
      this.log.warn(
        { roundNumber: round, waitedMs, ...facts },
        "the round's acknowledged votes are not all applied yet; its close waits for them",
      );
    }
  }

  /**
   * Whether `partition`'s applied mark, seen at `applied` at `now` (ms), has stood there for
   * `afterMs` or more — its consumer silent — and no read of it by this runner is under way:
   * then the caller reads it itself, and says when it is done (`readBehindDone`).
   */
  standsStill(partition: number, applied: bigint, now: number, afterMs: number): boolean {
    const seen = this.marks.get(partition);
    if (seen?.applied !== applied) {
      this.marks.set(partition, { applied, since: now });
      return false;
    }
    if (now - seen.since < afterMs || this.reading.has(partition)) return false;
    this.reading.add(partition);
    this.metrics.votesReadBehind.inc();
    this.log.warn(
      { partition, applied: String(applied), stillForMs: now - seen.since },
      "a votes partition's applied mark stands still while the close waits: the close applies its votes itself",
    );
    return true;
  }

  /** This runner's own read of `partition` ended (done or failed: looked at again if it lags). */
  readBehindDone(partition: number): void {
    this.reading.delete(partition);
    this.marks.delete(partition);
  }

  /** Round `round` closed with every vote applied, after waiting `waitedMs`. */
  settled(round: number, waitedMs: number): void {
    this.metrics.votesWait.observe(waitedMs / 1000);
    if (this.waiting?.round === round && this.waiting.warnings > 0) {
      this.log.info({ roundNumber: round, waitedMs }, "the round's votes are applied; it closes");
    }
    this.end();
  }

  /** The wait is over here (the round moved on, or this runner stops). */
  end(): void {
    this.marks.clear();
    if (!this.waiting) return;
    this.waiting = undefined;
    this.metrics.roundsAwaitingVotes.dec();
  }
}
