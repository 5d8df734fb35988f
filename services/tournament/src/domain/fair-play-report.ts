import type { RingReport } from '@underdog/fair-play';

/** The fair-play report of one tournament: ring detection over its recorded signals. */
export interface FairPlayReport extends RingReport {
  tournamentId: string;
  /** The tournament is finished: the report will not change any more. */
  final: boolean;
  computedAt: Date;
  participantCount: number;
  roundCount: number;
  /** user id → username, from their votes. */
  usernames: Record<string, string>;
}
