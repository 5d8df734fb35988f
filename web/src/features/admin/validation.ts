// Spec §5 admin form rules, pure (the dialogs show these messages under their fields).
import { i18n } from '../../app/i18n';
import type { AdvertisementType, DisplayPosition } from '../../gql/operations';

export const AD_TYPES: AdvertisementType[] = ['text', 'image', 'video', 'html'];
export const AD_POSITIONS: DisplayPosition[] = ['between_rounds', 'before_game', 'after_game'];
export const AD_DEFAULT_DURATION = 5;
export const AD_PREVIEW_CHARS = 100;
/** Spec §2: a new tournament starts one hour ahead by default. */
export const DEFAULT_START_AHEAD_MS = 60 * 60_000;

export interface TournamentForm {
  title: string;
  description: string;
  prize: string;
  /** datetime-local value, e.g. 2026-11-23T22:00 */
  startAt: string;
}

export type Errors<T> = Partial<Record<keyof T, string>>;

/** `YYYY-MM-DDTHH:mm` in local time, as a datetime-local input wants it. */
export function toLocalInput(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Spec §5: title required; start required and in the future, unless unchanged on edit. */
export function validateTournament(
  form: TournamentForm,
  now: number,
  originalStartAt?: string,
): Errors<TournamentForm> {
  const errors: Errors<TournamentForm> = {};
  if (!form.title.trim()) errors.title = i18n.t('adminForms.titleRequired');
  if (!form.startAt) errors.startAt = i18n.t('adminForms.startRequired');
  else {
    const start = Date.parse(form.startAt);
    const unchanged = originalStartAt !== undefined && form.startAt === originalStartAt;
    if (Number.isNaN(start)) errors.startAt = i18n.t('adminForms.startRequired');
    else if (!unchanged && start <= now) errors.startAt = i18n.t('adminForms.startInFuture');
  }
  return errors;
}

export interface AdForm {
  title: string;
  type: AdvertisementType;
  content: string;
  displayPosition: DisplayPosition;
  duration: string;
  isActive: boolean;
}

/** Spec §5: duration 1-60, falling back to 5 when not a number. */
export function durationOf(raw: string): number {
  const n = Number(raw);
  return raw.trim() === '' || Number.isNaN(n) ? AD_DEFAULT_DURATION : n;
}

/** Spec §5: title and content required on create (optional on update), duration 1-60. */
export function validateAd(form: AdForm, creating: boolean): Errors<AdForm> {
  const errors: Errors<AdForm> = {};
  if (creating && !form.title.trim()) errors.title = i18n.t('adminForms.titleRequired');
  if (creating && !form.content.trim()) errors.content = i18n.t('adminForms.contentRequired');
  const duration = durationOf(form.duration);
  if (!Number.isInteger(duration) || duration < 1 || duration > 60) {
    errors.duration = i18n.t('adminForms.durationRange');
  }
  return errors;
}

/** Spec §2: content cut at 100 characters plus an ellipsis. */
export function previewOf(content: string): string {
  return content.length > AD_PREVIEW_CHARS ? `${content.slice(0, AD_PREVIEW_CHARS)}...` : content;
}

/** Spec §2: the position with underscores shown as spaces. */
export function positionLabel(position: string): string {
  return position.replace(/_/g, ' ');
}

export interface Stats {
  total: number;
  live: number;
  upcoming: number;
  players: number;
}

/** Spec §2 stat cards; "Total Tournaments" counts the active (not finished) ones. */
export function statsOf(tournaments: { status: string; participantCount: number }[]): Stats {
  return {
    total: tournaments.filter((t) => t.status !== 'finished').length,
    live: tournaments.filter((t) => t.status === 'live').length,
    upcoming: tournaments.filter((t) => t.status === 'upcoming').length,
    players: tournaments.reduce((sum, t) => sum + t.participantCount, 0),
  };
}

export interface RoundSummary {
  roundNumber: number;
  votes: number;
  /** Players still in after the round. */
  remaining: number;
  /** Votes per option (1..n), in image order. */
  split: number[];
}

/** The survival curve and vote split of a played game, from its details. */
export function roundSummariesOf(details: {
  totalPlayers: number;
  rounds: {
    roundNumber: number;
    images: { id: string }[];
    votes: { imageId: string }[];
    eliminatedPlayers: unknown[];
  }[];
}): RoundSummary[] {
  let remaining = details.totalPlayers;
  return details.rounds.map((round) => {
    remaining -= round.eliminatedPlayers.length;
    return {
      roundNumber: round.roundNumber,
      votes: round.votes.length,
      remaining: Math.max(0, remaining),
      split: round.images.map((image) => round.votes.filter((v) => v.imageId === image.id).length),
    };
  });
}

/** Spec §2: a vote's option number (1-based), or ? when its image is unknown. */
export function optionOf(images: { id: string }[], imageId: string): string {
  const index = images.findIndex((image) => image.id === imageId);
  return index >= 0 ? String(index + 1) : '?';
}
