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
    if (!this.waiting) return;
    this.waiting = undefined;
    this.metrics.roundsAwaitingVotes.dec();
  }
}
