import type { Clock, Component, Logger } from '@underdog/kit';
import type { LifecycleOutbox } from '../adapters/lifecycle-outbox';
import type { PendingEvent, TournamentRepository } from '../adapters/tournament-repository';
import type { Tournament } from '../domain/tournament';
import { periodicComponent } from './periodic';

export interface SchedulerOptions {
  repository: TournamentRepository;
  outbox: LifecycleOutbox;
  clock: Clock;
  logger: Logger;
  /** How often to look for tournaments whose start has come. */
  pollMs: number;
}

/** Due tournaments started per pass; more wait for the next one, a poll interval later. */
const BATCH = 100;

/**
 * Moves tournaments from upcoming to live at `startAt`, by the server clock, exactly once
 * however many replicas run it: each polls, and the conditional update lets one replica win
 * each tournament. Only the winner publishes TournamentLive, whose event id
 * (`<tournament id>:live`) is the same if the outbox's sweep has to publish it again.
 */
export class Scheduler {
  constructor(private readonly options: SchedulerOptions) {}

  /**
   * One pass: starts every due tournament this replica wins; returns those. The due tournaments
   * start together, not one store write and one publish after another: two tournaments set for
   * the same minute went live a third of a second apart on FerretDB (docs/benchmarks.md), and a
   * hundred would have taken half a minute. One that fails is logged and left to the next pass.
   */
  async startDueTournaments(): Promise<Tournament[]> {
    const now = this.options.clock.now();
    const due = await this.options.repository.dueToStart(now, BATCH);
    const outcomes = await Promise.allSettled(due.map((id) => this.start(id, now)));
    const started: Tournament[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      if (outcome.status === 'fulfilled') {
        if (outcome.value) started.push(outcome.value);
      } else {
        this.options.logger.error(
          { err: outcome.reason, tournamentId: due[index] },
          'could not start a due tournament; the next pass tries again',
        );
      }
    }
    return started;
  }

  /** Starts one due tournament if this replica wins it (undefined: another one did). */
  private async start(id: string, now: Date): Promise<Tournament | undefined> {
    const live: PendingEvent = { id: `${id}:live`, occurredAt: now };
    const tournament = await this.options.repository.startIfDue(id, now, live);
    if (!tournament) return undefined;
    this.options.logger.info(
      { tournamentId: id, lagMs: now.getTime() - tournament.startAt.getTime() },
      'tournament is live',
    );
    await this.options.outbox.publishNow({ kind: 'live', event: live, tournament });
    return tournament;
  }

  /** A pass at start, then a poll interval after each; a failed pass is logged. */
  component(): Component {
    return periodicComponent({
      name: 'tournament-scheduler',
      intervalMs: this.options.pollMs,
      readiness: true,
      pass: async () => {
        try {
          await this.startDueTournaments();
        } catch (error) {
          this.options.logger.error({ err: error }, 'scheduler pass failed');
        }
      },
    });
  }
}
