/**
 * The records of played games as both edges show them (REST and GraphQL): statistics, history
 * items, a tournament's details, its rounds, standings and draw. Read and mapped in records.ts,
 * which exports them again.
 */
import type { TournamentView } from './tournaments';

/** A finished game's winner as the records show it; null (or absent in history) without one. */
export interface WinnerView {
  username: string;
}

export interface ParticipantStandingView {
  username: string;
  isEliminated: boolean;
  /** The round that eliminated the participant; null while still in. */
  eliminatedInRound: number | null;
  isOfflinePlayer: boolean;
  /** Disqualified by an administrator (issue 28): out at a round boundary, or after the game. */
  isDisqualified: boolean;
  /**
   * The administrator's reason, when disqualified and the caller is an administrator or the
   * participant themself; null otherwise.
   */
  disqualificationReason: string | null;
}

/**
 * The game's draw as its records show it (issue 37, docs/fairness.md): the commitment recorded
 * as the game began, the seed once finished, and the prize's order fixed at the end (usernames;
 * a disqualification after the game gives the prize to the first not disqualified in it).
 */
export interface RecordedDrawView {
  /** Hex SHA-256 of the seed. */
  commitment: string;
  /** Null until the game is finished. */
  seed: string | null;
  /** Empty until the game is finished (and for a game ended before the order was recorded). */
  order: string[];
}

/** Spec §3 "Tournament statistics response". */
export interface TournamentStatisticsView {
  /** The spec's `{ title, status, startAt, prize }`, with the rest of the tournament's fields. */
  tournament: TournamentView;
  /** Rounds played so far (0 before the game). */
  totalRounds: number;
  participantBreakdown: { total: number; online: number; offline: number };
  winner: WinnerView | null;
  participantCount: number;
  participants: ParticipantStandingView[];
  /** Participants disqualified by an administrator (during or after the game). */
  disqualifiedCount: number;
  /** Null while no game is recorded, or one recorded before its commitment was. */
  draw: RecordedDrawView | null;
}

/** A tournament as it was when its game started. */
export interface RecordedTournamentView {
  id: string;
  title: string;
  prize: string | null;
  /** ISO 8601. */
  startAt: string;
}

/** Spec §3 "Tournament history item"; `winner` is absent when the game had none. */
export interface TournamentHistoryItemView {
  tournament: RecordedTournamentView;
  winner?: WinnerView;
  totalPlayers: number;
  /** Rounds played. */
  totalRounds: number;
  /** ISO 8601. */
  endedAt: string;
}

export interface RoundDetailsView {
  roundNumber: number;
  images: { id: string; alt: string }[];
  votes: { username: string; imageId: string; votedAt: string; isOfflinePlayer: boolean }[];
  eliminatedPlayers: {
    username: string;
    isOfflinePlayer: boolean;
    /** Set when the player went out by an administrator's disqualification, not by their vote. */
    disqualificationReason: string | null;
  }[];
}

/** Spec §3 "Tournament detail". */
export interface TournamentDetailsView {
  tournament: TournamentView;
  winner: WinnerView | null;
  totalPlayers: number;
  rounds: RoundDetailsView[];
  /** As in the statistics. */
  draw: RecordedDrawView | null;
}
