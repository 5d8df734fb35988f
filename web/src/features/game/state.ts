// The live game as the client sees it: a pure reducer over the gateway's snapshot and events
// (spec §4: voting start sets voting and clears votes, voting end sets voting_ended, ad start
// sets advertisement, results start sets results, game end sets finished with the winner).
import type {
  GameEventsSubscription,
  LiveGameFieldsFragment,
  TournamentChangeKind,
} from '../../gql/operations';
import { offlinePickImageId } from '@underdog/rules';
import { i18n } from '../../app/i18n';

export type LiveGameView = LiveGameFieldsFragment;
export type GameEvent = GameEventsSubscription['gameEvents'];
export type GamePhase = LiveGameView['phase'];

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
 * An offline player's 17 pre-selected picks, by round: `picks[N - 1]` is round N's zero-based
 * option position ("0" .. "3", the `selectedImageId` of their offline choices).
 */
export type OfflinePicks = readonly (string | undefined)[];

/** The offline choices as `offlineChoices` answers them, as picks by round. */
export function offlinePicksOf(
  choices: readonly { roundNumber: number; selectedImageId: string }[],
): OfflinePicks {
  const picks: (string | undefined)[] = [];
  for (const { roundNumber, selectedImageId } of choices) picks[roundNumber - 1] = selectedImageId;
  return picks;
}

/**
 * The image the player stands on in the round: their own vote (the snapshot's, which for an
 * offline player is the pick the engine cast), else, for an offline player still in, their
 * pre-selected pick for that round; null when neither is known.
 */
export function ownPickOf(
  player: LiveGameView['player'],
  roundNumber: number,
  picks: OfflinePicks | undefined,
): string | null {
  if (!player) return null;
  if (player.voteImageId) return player.voteImageId;
  if (!player.isOfflinePlayer || roundNumber < 1) return null;
  // Out in an earlier round: the engine casts nothing for them any more.
  if (player.isEliminated && player.eliminatedInRound < roundNumber) return null;
  const pick = picks?.[roundNumber - 1];
  return pick === undefined ? null : offlinePickImageId(roundNumber, pick);
}

/** The game as the player sees it: an offline player's pre-selected pick as their vote. */
export function withOwnPick(game: LiveGameView, picks: OfflinePicks | undefined): LiveGameView {
  const player = game.player;
  if (!player?.isOfflinePlayer || player.voteImageId || game.phase === 'waiting') return game;
  const pick = ownPickOf(player, game.roundNumber, picks);
  return pick ? { ...game, player: { ...player, voteImageId: pick } } : game;
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

/**
 * Applies one event; a snapshot replaces everything (the state to start from on (re)connect).
 * `picks` are the signed-in offline player's pre-selected choices: a round they did not vote in
 * live is played with them. An event of a type this tab does not know (a newer server's) leaves
 * the state as it is (spec §7: unknown types are ignored).
 */
export function applyGameEvent(
  state: LiveGameView | undefined,
  event: GameEvent,
  picks?: OfflinePicks,
): LiveGameView | undefined {
  if (event.__typename === 'GameSnapshot') return event.game;
  if (!state) return state;
  switch (event.__typename) {
    case 'GameStarted':
      return {
        ...state,
        gameId: event.gameId,
        participantCount: event.participantCount,
        offlineParticipantCount: event.offlineParticipantCount,
        totalRounds: event.totalRounds,
        roundTimeSeconds: event.roundTimeSeconds,
        remainingCount: event.participantCount,
      };
    case 'RoundVotingStarted':
      return {
        ...state,
        phase: 'voting',
        roundNumber: event.roundNumber,
        images: event.images,
        roundTimeSeconds: event.roundTimeSeconds,
        phaseEndsAt: event.phaseEndsAt,
        remainingCount: event.remainingCount,
        totalVotes: 0,
        results: [],
        advertisement: null,
        player: state.player
          ? {
              ...state.player,
              voteImageId: ownPickOf(
                { ...state.player, voteImageId: null },
                event.roundNumber,
                picks,
              ),
            }
          : state.player,
      };
    case 'VoteTotal':
      if (event.roundNumber !== state.roundNumber) return state;
      return { ...state, totalVotes: Math.max(state.totalVotes, event.totalVotes) };
    case 'VotingEnded':
      if (event.roundNumber !== state.roundNumber) return state;
      return { ...state, phase: 'voting_ended', totalVotes: event.totalVotes, phaseEndsAt: null };
    case 'RoundResults': {
      const player = state.player;
      const pick = ownPickOf(player, event.roundNumber, picks);
      // An offline player whose pick this tab does not know yet is left as the server last said
      // (the next snapshot tells): never shown out while their pick may have advanced.
      const unknownOfflinePick = Boolean(player?.isOfflinePlayer) && pick === null;
      // A disqualified player goes out at the end of the round, whatever they voted (issue 28).
      const lost =
        player?.isParticipant &&
        !player.isEliminated &&
        (Boolean(player.disqualificationReason) ||
          (!unknownOfflinePick && !(pick && event.winningImageIds.includes(pick))));
      return {
        ...state,
        phase: 'results',
        roundNumber: event.roundNumber,
        results: event.results,
        totalVotes: event.totalVotes,
        remainingCount: event.remainingCount,
        phaseEndsAt: event.phaseEndsAt,
        player: !player
          ? player
          : lost
            ? {
                ...player,
                voteImageId: pick,
                isEliminated: true,
                eliminatedInRound: event.roundNumber,
              }
            : { ...player, voteImageId: pick },
      };
    }
    case 'AdvertisementStarted':
      return {
        ...state,
        phase: 'advertisement',
        advertisement: event.advertisement,
        phaseEndsAt: event.phaseEndsAt,
      };
    case 'RoundCompleted':
      return { ...state, remainingCount: event.remainingCount };
    case 'GameEnded':
      return { ...state, phase: 'finished', winner: event.winner, phaseEndsAt: null };
    case 'ParticipantDisqualified': {
      // Only the disqualified player hears it: they are out, with the administrator's reason.
      const player = state.player;
      if (!player) return state;
      return {
        ...state,
        player: {
          ...player,
          isEliminated: true,
          eliminatedInRound: player.isEliminated ? player.eliminatedInRound : event.roundNumber,
          disqualificationReason: event.reason,
        },
      };
    }
    default:
      return state;
  }
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

export interface GameToast {
  title: string;
  description?: string;
  durationMs: number;
}

/**
 * Spec §8's game toasts, with their durations, in the order they show. The end of the game is
 * one event here, which the spec's three end toasts announce one after another: Game Complete,
 * Winner Announced (when someone won) and Game Finished with the winner's username.
 */
export function toastsOf(event: GameEvent): GameToast[] {
  switch (event.__typename) {
    case 'GameStarted':
      return [{ title: i18n.t('toasts.gameStarted'), durationMs: 3_000 }];
    case 'RoundVotingStarted':
      return [
        { title: i18n.t('toasts.roundVoting', { round: event.roundNumber }), durationMs: 3_000 },
      ];
    case 'AdvertisementStarted':
      return [{ title: i18n.t('toasts.advertisement'), durationMs: 2_000 }];
    case 'RoundResults':
      return [{ title: i18n.t('toasts.roundResults'), durationMs: 3_000 }];
    case 'RoundCompleted':
      return [
        {
          title: i18n.t('toasts.roundComplete', { round: event.roundNumber }),
          description: i18n.t('toasts.roundCompleteText', {
            eliminated: event.eliminatedCount,
            remaining: event.remainingCount,
          }),
          durationMs: 4_000,
        },
      ];
    case 'GameEnded': {
      const winner = event.winner?.username;
      return [
        { title: i18n.t('toasts.gameComplete'), durationMs: 5_000 },
        ...(winner
          ? [{ title: i18n.t('toasts.winnerAnnounced'), description: winner, durationMs: 8_000 }]
          : []),
        {
          title: i18n.t('toasts.gameFinished'),
          description: winner || i18n.t('toasts.anonymous'),
          durationMs: 5_000,
        },
      ];
    }
    case 'ParticipantDisqualified':
      return [
        {
          title: i18n.t('toasts.disqualified'),
          description: event.reason,
          durationMs: 8_000,
        },
      ];
    case 'GameSnapshot':
    case 'VoteTotal':
    case 'VotingEnded':
      return [];
    default:
      // A type this tab does not know (a newer server's): nothing to announce (spec §7).
      return [];
  }
}

/** Spec §8: the tournament's own start and finish (pushed as tournament_live / _finished). */
export function tournamentToastOf(kind: TournamentChangeKind): GameToast | undefined {
  switch (kind) {
    case 'live':
      return { title: i18n.t('toasts.tournamentStarted'), durationMs: 5_000 };
    case 'finished':
      return { title: i18n.t('toasts.tournamentFinished'), durationMs: 5_000 };
    case 'created':
    case 'updated':
    case 'deleted':
      return undefined;
  }
}
