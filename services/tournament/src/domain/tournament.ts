import { commonErrors } from '@underdog/kit';
import { ROUND_TIME_SECONDS } from '@underdog/rules';
import { tournamentErrors } from './errors';

export type TournamentStatus = 'upcoming' | 'live' | 'finished';

export interface Tournament {
  id: string;
  title: string;
  description?: string;
  /** Free text as the admin typed it, e.g. "$5,000". */
  prize?: string;
  startAt: Date;
  status: TournamentStatus;
  participantCount: number;
  roundTimeSeconds: number;
  createdAt: Date;
  updatedAt: Date;
}

/** The changes announced on `tournament.lifecycle`, one event case each. */
export type LifecycleKind = 'created' | 'updated' | 'deleted' | 'live' | 'finished';

export const TITLE_MAX_LENGTH = 120;
export const DESCRIPTION_MAX_LENGTH = 2000;
export const PRIZE_MAX_LENGTH = 100;
export { ROUND_TIME_SECONDS };

/** What an admin submits when creating or editing a tournament, before validation (validation.ts). */
export interface TournamentDraft {
  title: string;
  description?: string | undefined;
  prize?: string | undefined;
  startAt?: Date | undefined;
  /** Absent: the default on create, the current value on edit. */
  roundTimeSeconds?: number | undefined;
}

/**
 * A draft that passed the input rules (validation.ts `parseDraft`); the rules that need the stored
 * tournament or the time are the domain's (`fieldsForCreate`, `fieldsForUpdate`). Declared here so
 * the domain does not import validation.ts, which imports the domain's limits.
 */
export interface ParsedDraft {
  title: string;
  startAt: Date;
  roundTimeSeconds?: number | undefined;
  description?: string | undefined;
  prize?: string | undefined;
}

/** The editable fields of a tournament, validated. */
export interface TournamentFields {
  title: string;
  description: string | undefined;
  prize: string | undefined;
  startAt: Date;
  roundTimeSeconds: number;
}

/** A new tournament's fields, from a parsed draft: it must start in the future. */
export function fieldsForCreate(parsed: ParsedDraft, now: Date): TournamentFields {
  if (parsed.startAt.getTime() <= now.getTime()) {
    throw commonErrors.invalid('Start time must be in the future');
  }
  return {
    title: parsed.title,
    description: parsed.description,
    prize: parsed.prize,
    startAt: parsed.startAt,
    roundTimeSeconds: parsed.roundTimeSeconds ?? ROUND_TIME_SECONDS.default,
  };
}

/**
 * The admin form edits the start at minute precision, so a start in the same minute as the
 * stored one is the unchanged start sent back, and the stored value is kept.
 */
export function isSameStart(submitted: Date, stored: Date): boolean {
  const minute = 60_000;
  return Math.floor(submitted.getTime() / minute) === Math.floor(stored.getTime() / minute);
}

/**
 * An edit's resulting fields. Upcoming: anything may change, a changed start must be in the
 * future (an unchanged one is accepted even if it has passed). Live: the texts only. Finished:
 * nothing.
 */
export function fieldsForUpdate(
  current: Tournament,
  parsed: ParsedDraft,
  now: Date,
): TournamentFields {
  if (current.status === 'finished') throw tournamentErrors.finishedReadOnly();
  const startUnchanged = isSameStart(parsed.startAt, current.startAt);
  const roundTimeSeconds = parsed.roundTimeSeconds ?? current.roundTimeSeconds;
  switch (current.status) {
    case 'live':
      if (!startUnchanged) throw tournamentErrors.liveStartLocked();
      if (roundTimeSeconds !== current.roundTimeSeconds) {
        throw tournamentErrors.liveRoundTimeLocked();
      }
      break;
    case 'upcoming':
      if (!startUnchanged && parsed.startAt.getTime() <= now.getTime()) {
        throw commonErrors.invalid('Start time must be in the future');
      }
      break;
  }
  return {
    title: parsed.title,
    description: parsed.description,
    prize: parsed.prize,
    startAt: startUnchanged ? current.startAt : parsed.startAt,
    roundTimeSeconds,
  };
}

/** Only an upcoming tournament may be deleted. */
export function assertDeletable(tournament: Tournament): void {
  switch (tournament.status) {
    case 'upcoming':
      return;
    case 'live':
      throw tournamentErrors.liveNotDeletable();
    case 'finished':
      throw tournamentErrors.finishedReadOnly();
  }
}

const statusRank: Record<TournamentStatus, number> = { live: 0, upcoming: 1, finished: 2 };

/**
 * The listing order: live first, then upcoming soonest first, then finished most recent first
 * (ties by creation, so the order is stable).
 */
export function compareForListing(a: Tournament, b: Tournament): number {
  if (a.status !== b.status) return statusRank[a.status] - statusRank[b.status];
  const byStart = a.startAt.getTime() - b.startAt.getTime();
  const ordered = a.status === 'finished' ? -byStart : byStart;
  return ordered || a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id);
}
