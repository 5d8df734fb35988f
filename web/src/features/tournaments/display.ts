// What the screens show of a tournament: its display status, countdown, place in the home
// lists, offline window and the action a viewer gets (the game's own rules: @underdog/rules).
import type { TournamentFieldsFragment } from '../../gql/operations';
import { OFFLINE_WINDOW_CLOSES_BEFORE_START_MS } from '@underdog/rules';
import { i18n } from '../../app/i18n';

export type Tournament = TournamentFieldsFragment;
export type DisplayStatus = 'upcoming' | 'live' | 'finished';

/** Spec §4: a live tournament's countdown ends 1 hour after its start. */
export const LIVE_COUNTDOWN_MS = 60 * 60_000;
/** Spec §2: the home screen lists the first 5 finished tournaments. */
export const PREVIOUS_TOURNAMENTS_SHOWN = 5;

export function startOf(tournament: Tournament): number {
  return Date.parse(tournament.startAt);
}

/**
 * Spec §4: upcoming until the start time passes, then live; finished only when the server
 * says so (never derived on the client).
 */
export function displayStatusOf(tournament: Tournament, now: number): DisplayStatus {
  if (tournament.status === 'finished') return 'finished';
  if (tournament.status === 'live' || now >= startOf(tournament)) return 'live';
  return 'upcoming';
}

/** Open only while the tournament is upcoming and it is earlier than 5 minutes before start. */
export function isOfflineWindowOpen(tournament: Tournament, now: number): boolean {
  return (
    tournament.status === 'upcoming' &&
    now < startOf(tournament) - OFFLINE_WINDOW_CLOSES_BEFORE_START_MS
  );
}

/** What a countdown counts down to: the start, or (live) the end of the live hour. */
export function countdownTargetOf(tournament: Tournament, now: number): number | undefined {
  switch (displayStatusOf(tournament, now)) {
    case 'upcoming':
      return startOf(tournament);
    case 'live':
      return startOf(tournament) + LIVE_COUNTDOWN_MS;
    case 'finished':
      return undefined;
  }
}

/** The hero: the live tournament, otherwise the earliest upcoming one. */
export function heroTournamentOf(tournaments: Tournament[], now: number): Tournament | undefined {
  const live = tournaments.find((t) => displayStatusOf(t, now) === 'live');
  if (live) return live;
  return tournaments
    .filter((t) => displayStatusOf(t, now) === 'upcoming')
    .sort((a, b) => startOf(a) - startOf(b))[0];
}

export function upcomingOf(tournaments: Tournament[], now: number): Tournament[] {
  return tournaments
    .filter((t) => displayStatusOf(t, now) !== 'finished')
    .sort((a, b) => startOf(a) - startOf(b));
}

export function previousOf(tournaments: Tournament[]): Tournament[] {
  return tournaments
    .filter((t) => t.status === 'finished')
    .sort((a, b) => startOf(b) - startOf(a))
    .slice(0, PREVIOUS_TOURNAMENTS_SHOWN);
}

export type GameMode = 'live' | 'offline' | 'watch' | 'results';

export function gamePath(id: string, mode: GameMode): string {
  return `/game/${encodeURIComponent(id)}?mode=${mode}`;
}

export interface Action {
  label: string;
  /** Where the button goes; absent for a disabled button. */
  to?: string;
}

export interface Viewer {
  loggedIn: boolean;
  /** Whether the viewer already pre-registered for this tournament. */
  hasChoices: boolean;
}

/** Spec §2, hero card buttons. */
export function heroActionOf(tournament: Tournament, now: number, viewer: Viewer): Action {
  switch (displayStatusOf(tournament, now)) {
    case 'live':
      return { label: i18n.t('actions.playNow'), to: gamePath(tournament.id, 'live') };
    case 'finished':
      return { label: i18n.t('actions.viewResults'), to: gamePath(tournament.id, 'results') };
    case 'upcoming':
      if (viewer.hasChoices) return { label: i18n.t('actions.alreadyRegistered') };
      if (isOfflineWindowOpen(tournament, now)) {
        return { label: i18n.t('actions.playOffline'), to: gamePath(tournament.id, 'offline') };
      }
      return { label: i18n.t('actions.offlineClosed') };
  }
}

/** Spec §2, list-row buttons. */
export function rowActionOf(tournament: Tournament, now: number, viewer: Viewer): Action {
  const status = displayStatusOf(tournament, now);
  if (status === 'finished')
    return { label: i18n.t('actions.results'), to: gamePath(tournament.id, 'results') };
  if (!viewer.loggedIn) return { label: i18n.t('actions.loginToPlay') };
  if (status === 'live')
    return { label: i18n.t('actions.play'), to: gamePath(tournament.id, 'live') };
  if (viewer.hasChoices) return { label: i18n.t('actions.registered') };
  if (isOfflineWindowOpen(tournament, now)) {
    return { label: i18n.t('actions.playOffline'), to: gamePath(tournament.id, 'offline') };
  }
  return { label: i18n.t('actions.closed') };
}

/** Spec §2, offline-screen tournament cards. */
export function offlineCardActionOf(
  tournament: Tournament,
  now: number,
  viewer: Viewer,
): Action & { pick?: boolean } {
  if (!viewer.loggedIn) return { label: i18n.t('actions.loginRequiredToPlay') };
  switch (displayStatusOf(tournament, now)) {
    case 'live':
      return { label: i18n.t('actions.playNow'), to: gamePath(tournament.id, 'live') };
    case 'finished':
      return { label: i18n.t('actions.viewResults'), to: gamePath(tournament.id, 'results') };
    case 'upcoming':
      if (viewer.hasChoices) return { label: i18n.t('actions.alreadyRegistered') };
      if (isOfflineWindowOpen(tournament, now))
        return { label: i18n.t('actions.preSubmit'), pick: true };
      return { label: i18n.t('actions.offlineClosed') };
  }
}
