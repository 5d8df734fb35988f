import type { Clock, Component, Logger } from '@underdog/kit';
import type { FairPlayRepository } from '../adapters/fair-play-repository';
import type { Tournament } from '../domain/tournament';
import { periodicComponent } from './periodic';

const DAY_MS = 24 * 60 * 60_000;

/** What one sweep forgot. */
export interface RetentionSweep {
  /** Finished tournaments whose rows and rounds were deleted. */
  tournaments: string[];
  /** Rows of deleted tournaments. */
  unknownTournamentRows: number;
  /** Login rows deleted. */
  logins: number;
  /** Fields removed from registration rows (device id, address prefix, user agent). */
  registrationFields: number;
}

/**
 * Fair-play signals are kept only as long as a report needs them (docs/security.md, issue 28),
 * `FAIR_PLAY_RETENTION_DAYS` (`retentionDays`):
 *
 * - a tournament's rows (joins, where votes came from, vote timing) and its rounds: deleted that
 *   many days after the tournament finished (its `updatedAt`, which the finish sets last);
 * - a deleted tournament's rows: that many days after they were recorded;
 * - an account's login rows: that many days after the login; its registration row then keeps
 *   only who and when (the registration-burst evidence), without device id, address prefix and
 *   user agent.
 *
 * A periodic sweep rather than a TTL index: the deadline of a tournament's rows depends on when
 * the tournament finished, which the rows do not carry, and the memory store has no TTL. Every
 * replica sweeps (at start, then every `intervalMs`); the deletes are idempotent, so two
 * replicas sweeping at once only repeat work. A failed sweep is logged and tried at the next.
 */
export class FairPlayRetention {
  /** Tournaments this process already swept (their rows are gone; nothing is added after). */
  private readonly swept = new Set<string>();

  constructor(
    private readonly deps: {
      repository: FairPlayRepository;
      tournaments: { list(): Promise<Tournament[]> };
      clock: Clock;
      retentionDays: number;
      logger: Logger;
      /** Called for each tournament whose rows were deleted (a kept final report goes too). */
      forgotten?: (tournamentId: string) => void;
      /** Between sweeps; default an hour. */
      intervalMs?: number;
    },
  ) {}

  /** One sweep: what is past its retention is deleted (or, for registrations, stripped). */
  async sweep(): Promise<RetentionSweep> {
    const { repository, clock, retentionDays } = this.deps;
    const cutoff = new Date(clock.now().getTime() - retentionDays * DAY_MS);
    const all = await this.deps.tournaments.list();
    const tournaments: string[] = [];
    for (const tournament of all) {
      if (tournament.status !== 'finished' || tournament.updatedAt >= cutoff) continue;
      if (this.swept.has(tournament.id)) continue;
      await repository.deleteForTournament(tournament.id);
      this.swept.add(tournament.id);
      this.deps.forgotten?.(tournament.id);
      tournaments.push(tournament.id);
    }
    const unknownTournamentRows = await repository.deleteUnknownTournamentsBefore(
      all.map((tournament) => tournament.id),
      cutoff,
    );
    const accounts = await repository.forgetAccountSignalsBefore(cutoff);
    return {
      tournaments,
      unknownTournamentRows,
      logins: accounts.deleted,
      registrationFields: accounts.stripped,
    };
  }

  /** A sweep at start, then every `intervalMs`; the wait keeps no process alive. */
  component(): Component {
    return periodicComponent({
      name: 'fair-play-retention',
      intervalMs: this.deps.intervalMs ?? 60 * 60_000,
      keepsAlive: false,
      pass: () => this.runPass(),
    });
  }

  /** Never rejects: a failed sweep is logged and the next comes an interval later. */
  private async runPass(): Promise<void> {
    try {
      const result = await this.sweep();
      const forgot =
        result.tournaments.length +
        result.unknownTournamentRows +
        result.logins +
        result.registrationFields;
      if (forgot > 0) {
        this.deps.logger.info(
          { ...result, tournaments: result.tournaments.length },
          'fair-play signals past their retention forgotten',
        );
      }
    } catch (error) {
      this.deps.logger.error({ err: error }, 'fair-play retention sweep failed');
    }
  }
}
