// What the game screen derives from the live game: the countdown's seconds and urgency, the
// progress bar, the results' rows, which screen shows, whether the viewer may vote, and the
// round's message (spec §2, §4, §5, §9). Re-exported by `state.ts`.
import { i18n } from '../../app/i18n';
import type { GamePhase, LiveGameView } from './game-reducer';

/** Spec §9: the countdown turns red at 5 seconds or less. */
export const URGENCY_THRESHOLD_SECONDS = 5;
/** Spec §4/§9: results auto-advance after 4 s. */
export const RESULTS_AUTO_ADVANCE_MS = 4_000;
/** Spec §8: the fallback ad shown when no ad is running. */
export const FALLBACK_AD_SECONDS = 5;
export const BRAND = 'Underdog';
/** The fallback ad's text, in the user's language. */
export function fallbackAdText(): string {
  return i18n.t('game.adWelcome', { brand: BRAND });
}

/**
 * Whether the game ends after the round shown: the last round, or a round that left one player
 * or none (server rules: the game is then decided). Not before round 1.
 */
export function isFinalRound(
  game: Pick<LiveGameView, 'roundNumber' | 'totalRounds' | 'remainingCount'>,
): boolean {
  return (
    game.roundNumber >= 1 && (game.roundNumber >= game.totalRounds || game.remainingCount <= 1)
  );
}

/** Whole seconds left (rounded up), never below 0. */
export function secondsLeft(remainingMs: number): number {
  return Math.max(0, Math.ceil(remainingMs / 1000));
}

/** Spec §2: urgency in red at 5 seconds or less, while time remains. */
export function isUrgent(remainingMs: number): boolean {
  const seconds = secondsLeft(remainingMs);
  return seconds > 0 && seconds <= URGENCY_THRESHOLD_SECONDS;
}

/** Share of the phase elapsed, 0..100, for the progress bar. */
export function progressPercent(remainingMs: number, totalSeconds: number): number {
  if (totalSeconds <= 0) return 100;
  const share = 1 - remainingMs / (totalSeconds * 1000);
  return Math.round(Math.min(1, Math.max(0, share)) * 100);
}

export type Outcome = 'ADVANCED' | 'ELIMINATED';

export interface ResultRow {
  option: number;
  imageId: string;
  url: string;
  alt: string;
  votes: number;
  percentage: number;
  outcome: Outcome;
  isOwnVote: boolean;
}

/** Spec §2 round results: each image's votes and whole percentage, ADVANCED for a winner. */
export function resultRowsOf(
  images: LiveGameView['images'],
  results: LiveGameView['results'],
  ownVoteImageId?: string | null,
): ResultRow[] {
  const total = results.reduce((sum, r) => sum + r.votes, 0);
  return images.map((image, index) => {
    const result = results.find((r) => r.imageId === image.id);
    const votes = result?.votes ?? 0;
    return {
      option: index + 1,
      imageId: image.id,
      url: image.url,
      alt: image.alt,
      votes,
      percentage: result?.percentage ?? (total > 0 ? Math.round((votes / total) * 100) : 0),
      outcome: result?.isWinner ? 'ADVANCED' : 'ELIMINATED',
      isOwnVote: ownVoteImageId === image.id,
    };
  });
}

export type GameScreen = 'lobby' | 'game' | 'advertisement' | 'results' | 'winner';

/** Spec §4: voting and voting_ended → game; advertisement → ad; results → results; finished → winner. */
export function screenOf(phase: GamePhase): GameScreen {
  switch (phase) {
    case 'voting':
    case 'voting_ended':
      return 'game';
    case 'advertisement':
      return 'advertisement';
    case 'results':
      return 'results';
    case 'finished':
      return 'winner';
    case 'waiting':
      return 'lobby';
  }
}

export interface Viewer {
  loggedIn: boolean;
  mode: 'live' | 'offline' | 'watch' | 'results';
}

/** Spec §5: whether the viewer may pick an image now. */
export function canVote(game: LiveGameView, viewer: Viewer, remainingMs: number): boolean {
  if (viewer.mode !== 'live' || !viewer.loggedIn) return false;
  if (game.phase !== 'voting' || secondsLeft(remainingMs) === 0) return false;
  const player = game.player;
  if (player?.isOfflinePlayer || player?.isEliminated || player?.voteImageId) return false;
  if (player?.disqualificationReason) return false;
  if (!player?.isParticipant && game.roundNumber !== 1) return false;
  return true;
}

/**
 * Whether a signed-in player in live mode arrived too late to take part: not a participant once
 * round 1's voting is over (server rules: only a vote in round 1 joins a running game), so they
 * can only watch.
 */
export function joinedLate(game: LiveGameView, viewer: Viewer): boolean {
  if (!viewer.loggedIn || viewer.mode !== 'live' || game.player?.isParticipant) return false;
  if (game.phase === 'waiting' || game.phase === 'finished' || game.roundNumber < 1) return false;
  return game.roundNumber > 1 || game.phase !== 'voting';
}

/** Spec §2: the message under the round's images, in the user's language. */
export function roundMessageOf(
  game: LiveGameView,
  viewer: Viewer,
  remainingMs: number,
): string | undefined {
  const message = roundMessageKindOf(game, viewer, remainingMs);
  return message && i18n.t(ROUND_MESSAGE_KEY[message]);
}

export type RoundMessage = 'login' | 'joinedLate' | 'preRegistered' | 'lockedIn' | 'missed';

const ROUND_MESSAGE_KEY: Record<RoundMessage, string> = {
  login: 'game.messageLogin',
  joinedLate: 'game.messageJoinedLate',
  preRegistered: 'game.messagePreRegistered',
  lockedIn: 'game.messageLockedIn',
  missed: 'game.messageMissed',
};

/** Which of spec §2's round messages applies, if any. */
export function roundMessageKindOf(
  game: LiveGameView,
  viewer: Viewer,
  remainingMs: number,
): RoundMessage | undefined {
  if (!viewer.loggedIn) return 'login';
  if (joinedLate(game, viewer)) return 'joinedLate';
  const player = game.player;
  if (player?.isOfflinePlayer) return 'preRegistered';
  if (player?.voteImageId) return 'lockedIn';
  if (viewer.mode === 'live' && !player?.isEliminated && secondsLeft(remainingMs) === 0) {
    return 'missed';
  }
  return undefined;
}
