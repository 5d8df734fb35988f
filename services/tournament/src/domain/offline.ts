import { OFFLINE_WINDOW_CLOSES_BEFORE_START_MS } from '@underdog/rules';
import type { Tournament } from './tournament';

/** One pre-registered pick: the zero-based position ("0".."3") of the image in that round. */
export interface OfflineChoice {
  roundNumber: number;
  selectedImageId: string;
}

export function offlineWindowClosesAt(tournament: Pick<Tournament, 'startAt'>): Date {
  return new Date(tournament.startAt.getTime() - OFFLINE_WINDOW_CLOSES_BEFORE_START_MS);
}

/** Open while the tournament is upcoming and the server clock is before start − 5 minutes. */
export function isOfflineWindowOpen(
  tournament: Pick<Tournament, 'status' | 'startAt'>,
  now: Date,
): boolean {
  return (
    tournament.status === 'upcoming' && now.getTime() < offlineWindowClosesAt(tournament).getTime()
  );
}
