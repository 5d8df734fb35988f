import type { Clock, Component, Logger } from '@underdog/kit';
import type { LifecycleOutbox } from '../adapters/lifecycle-outbox';
import type { PendingEvent, TournamentRepository } from '../adapters/tournament-repository';
import type { Tournament } from '../domain/tournament';

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
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> | undefined;
  private running = false;

  constructor(private readonly options: SchedulerOptions) {}

  /** One pass: starts every due tournament this replica wins; returns those. */
  async startDueTournaments(): Promise<Tournament[]> {
    const { repository, outbox, logger } = this.options;
    const now = this.options.clock.now();
    const started: Tournament[] = [];
    for (const id of await repository.dueToStart(now, BATCH)) {
      const live: PendingEvent = { id: `${id}:live`, occurredAt: now };
      const tournament = await repository.startIfDue(id, now, live);
      if (!tournament) continue; // another replica started it
      logger.info(
        { tournamentId: id, lagMs: now.getTime() - tournament.startAt.getTime() },
        'tournament is live',
      );
      await outbox.publishNow({ kind: 'live', event: live, tournament });
      started.push(tournament);
    }
    return started;
  }

  component(): Component {
    return {
      name: 'tournament-scheduler',
      start: async () => {
        this.running = true;
        this.pass = this.runPass();
      },
      stop: async () => {
        this.running = false;
        clearTimeout(this.timer);
        await this.pass;
      },
      isReady: () => this.running,
    };
  }

  /** Never rejects: a failed pass is logged and the next one comes a poll interval later. */
  private async runPass(): Promise<void> {
    try {
      await this.startDueTournaments();
    } catch (error) {
      this.options.logger.error({ err: error }, 'scheduler pass failed');
    } finally {
      if (this.running) {
        this.timer = setTimeout(() => {
          this.pass = this.runPass();
        }, this.options.pollMs);
      }
    }
  }
}
