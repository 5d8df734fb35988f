import {
  GamePhase,
  timestampDate,
  type GameEvent,
  type LiveGame,
  type PlayerView,
  type Timestamp,
  type TournamentLifecycleEvent,
} from '@underdog/proto';
import { countsShownIn } from '@underdog/rules';
import { toAdvertisementView, type AdvertisementView } from '../ads';
import { toTournamentView, type TournamentView } from '../tournaments';
import { gameEventViewOf } from './game-event-derived';
import { imageView, resultView, secondsUntil } from './game-event-parts';
import type { GameEventBase, GameEventView } from './game-events';
import type { ImageResultView, RoundImageView, WinnerView } from './round-views';

export { secondsUntil } from './game-event-parts';
export type { ImageResultView, RoundImageView, WinnerView } from './round-views';

/**
 * The live game as clients see it, pure and shared by both real-time edges: the `/ws` messages
 * (`messages.ts`) and the GraphQL `gameEvents` / `tournamentsChanged` payloads (graphql/live/)
 * are built from these views, so the two protocols carry the same information.
 */

export type GamePhaseName =
  'waiting' | 'voting' | 'voting_ended' | 'advertisement' | 'results' | 'finished';

const phaseNames: Record<GamePhase, GamePhaseName> = {
  [GamePhase.UNSPECIFIED]: 'waiting',
  [GamePhase.WAITING]: 'waiting',
  [GamePhase.VOTING]: 'voting',
  [GamePhase.VOTING_ENDED]: 'voting_ended',
  [GamePhase.RESULTS]: 'results',
  [GamePhase.ADVERTISEMENT]: 'advertisement',
  [GamePhase.FINISHED]: 'finished',
};

export interface PlayerStateView {
  isParticipant: boolean;
  isEliminated: boolean;
  /** 0 while still in. */
  eliminatedInRound: number;
  isOfflinePlayer: boolean;
  /** The caller's vote in the current round, when cast. */
  voteImageId: string | null;
  /**
   * Set once an administrator disqualified the caller (issue 28): they go out at the end of the
   * round it was decided in (`isEliminated` then follows).
   */
  disqualificationReason: string | null;
}

/** The snapshot a client starts from (proto `LiveGame`), with the time left computed. */
export interface LiveGameView {
  tournamentId: string;
  /** Empty while no game exists. */
  gameId: string;
  phase: GamePhaseName;
  roundNumber: number;
  totalRounds: number;
  roundTimeSeconds: number;
  images: RoundImageView[];
  /** ISO 8601 deadline of the current phase; null in waiting and finished. */
  phaseEndsAt: string | null;
  /** ISO 8601, when the snapshot was taken. */
  serverTime: string;
  /** Whole seconds until `phaseEndsAt` (rounded up), 0 without a deadline. */
  timeRemaining: number;
  /** Votes cast in the current round; the only count shown while voting is open. */
  totalVotes: number;
  participantCount: number;
  offlineParticipantCount: number;
  remainingCount: number;
  /** The last resolved round's counts (empty while a round's voting is open). */
  results: ImageResultView[];
  advertisement: AdvertisementView | null;
  winner: WinnerView | null;
  /** Null for a visitor. */
  player: PlayerStateView | null;
  /**
   * Hex SHA-256 of the draw's seed, public from the game's start; '' before it (issue 37,
   * docs/fairness.md).
   */
  drawCommitment: string;
}

/** One `game.events` event as clients see it: described once each in game-events.ts. */
export type { GameEventView } from './game-events';

/** A `GameEventView` with its snapshot sibling: what the `gameEvents` subscription yields. */
export type GameFeedItem =
  GameEventView | (GameEventBase & { type: 'GameSnapshot'; game: LiveGameView });

export type TournamentChangeKind = 'created' | 'updated' | 'deleted' | 'live' | 'finished';

/** A `tournament.lifecycle` event that changes the tournament list clients show. */
export interface TournamentChange {
  kind: TournamentChangeKind;
  tournamentId: string;
  /** The tournament after the change; null once deleted. */
  tournament: TournamentView | null;
}

const iso = (timestamp: Timestamp | undefined): string | null =>
  timestamp ? timestampDate(timestamp).toISOString() : null;

export function toPlayerStateView(player: PlayerView): PlayerStateView {
  return {
    isParticipant: player.isParticipant,
    isEliminated: player.isEliminated,
    eliminatedInRound: player.eliminatedInRound,
    isOfflinePlayer: player.isOfflinePlayer,
    voteImageId: player.voteImageId ?? null,
    disqualificationReason: player.disqualificationReason ?? null,
  };
}

/** The snapshot; `now` is the gateway's clock (the engine's `server_time` is kept as such). */
export function toLiveGameView(game: LiveGame, now: Date): LiveGameView {
  const phaseEndsAt = iso(game.phaseEndsAt);
  const phase = phaseNames[game.phase];
  return {
    tournamentId: game.tournamentId,
    gameId: game.gameId,
    phase,
    roundNumber: game.roundNumber,
    totalRounds: game.totalRounds,
    roundTimeSeconds: game.roundTimeSeconds,
    images: game.images.map(imageView),
    phaseEndsAt,
    serverTime: iso(game.serverTime) ?? now.toISOString(),
    timeRemaining: secondsUntil(phaseEndsAt, now),
    totalVotes: game.totalVotes,
    participantCount: game.participantCount,
    offlineParticipantCount: game.offlineParticipantCount,
    remainingCount: game.remainingCount,
    // Per-image counts stay hidden until the round is resolved, whatever the engine sent.
    results: countsShownIn(phase) ? game.results.map(resultView) : [],
    advertisement: game.advertisement ? toAdvertisementView(game.advertisement) : null,
    winner: game.winner
      ? {
          userId: game.winner.userId,
          username: game.winner.username,
          displayName: game.winner.displayName,
          prize: game.winner.prize ?? null,
        }
      : null,
    player: game.player ? toPlayerStateView(game.player) : null,
    drawCommitment: game.drawCommitment,
  };
}

/**
 * The client view of a `game.events` event, or null for an envelope without a kind (a newer
 * producer's event this gateway does not know yet) or a case clients are not sent
 * (`participantJoined`: the tournament's count follows it). Each case's fields are read as its
 * one description says (game-events.ts). `now` computes `timeRemaining`.
 */
export function toGameEventView(event: GameEvent, now: Date): GameEventView | null {
  const base: GameEventBase = {
    tournamentId: event.tournamentId,
    gameId: event.gameId,
    occurredAt: iso(event.occurredAt) ?? now.toISOString(),
  };
  return gameEventViewOf(base, event.kind, now);
}

/**
 * The list-changing part of a `tournament.lifecycle` event, or null for one that does not
 * change the list clients see (offline choices saved: the tournament's count follows as an
 * update).
 */
export function toTournamentChange(event: TournamentLifecycleEvent): TournamentChange | null {
  const { kind } = event;
  const change = (changeKind: TournamentChangeKind, tournament: TournamentView | null) => ({
    kind: changeKind,
    tournamentId: event.tournamentId,
    tournament,
  });
  switch (kind.case) {
    case 'created':
    case 'updated':
    case 'live':
    case 'finished':
      return kind.value.tournament
        ? change(kind.case, toTournamentView(kind.value.tournament))
        : null;
    case 'deleted':
      return change('deleted', null);
    case 'offlineChoicesSaved':
    case undefined:
      return null;
  }
}
