/**
 * The engine's durable record of games as a port: what it writes at each milestone of a game
 * (started, joined, round resolved, ended, disqualified, winner re-decided), what it reads back
 * of a finished game, and `GameRecords` itself. Its adapter on the document store is
 * game-records.ts.
 */

export interface ParticipantRecord {
  userId: string;
  username: string;
  isOfflinePlayer: boolean;
  joinedAt: Date;
  /**
   * The round that eliminated the participant, when already known (a game's records written
   * again at its end): the document is inserted eliminated, not updated afterwards. On FerretDB
   * each such update is a locked write that scans the collection: 300 of them took minutes at
   * a game's end in the fault suite (issue 29).
   */
  eliminatedInRound?: number;
  /** Set when disqualified (known when the whole game is written again at its end). */
  disqualificationReason?: string;
}

export interface GameStartedRecord {
  gameId: string;
  tournament: { id: string; title: string; prize?: string; startAt: Date };
  totalRounds: number;
  roundTimeSeconds: number;
  startedAt: Date;
  participants: ParticipantRecord[];
  /**
   * The commitment to the draw's seed (hex SHA-256), public from the start; written once with
   * the game's document and never replaced (the seed revealed at the end is checked against it).
   */
  drawCommitment?: string;
}

export interface RoundResolvedRecord {
  gameId: string;
  roundNumber: number;
  images: { id: string; url: string; alt: string }[];
  timeLimit: number;
  startedAt: Date;
  endedAt: Date;
  votes: {
    userId: string;
    username: string;
    imageId: string;
    votedAt: Date;
    isOfflinePlayer: boolean;
    isWinningVote: boolean;
  }[];
  eliminated: { userId: string }[];
  results: { imageId: string; votes: number; percentage: number; isWinner: boolean }[];
}

/** The seeded draw that decided a game among the last round's survivors. */
export interface GameDraw {
  seed: string;
  candidateUserIds: string[];
  winnerUserId: string;
}

export interface GameEndedRecord {
  gameId: string;
  endedAt: Date;
  winner?: { userId: string; username: string; prize?: string };
  draw?: GameDraw;
  /** The seed of the game's final draw, revealed at the end (whether or not a draw was made). */
  drawSeed?: string;
  /** The prize's order fixed at the reveal (`prizeOrder`; docs/fairness.md). */
  drawOrder?: string[];
}

/** The seed revealed at a game's end does not hash to the commitment recorded at its start. */
export class DrawCommitmentMismatchError extends Error {
  readonly code = 'DRAW_COMMITMENT_MISMATCH';
}

export interface WinnerChange {
  gameId: string;
  previousWinnerId: string;
  lastRound: number;
  winner: { userId: string; username: string } | undefined;
  /**
   * The prize's order (`redecideOutcome`): stored with the change, so a game recorded before the
   * order was keeps the one recomputed from its reveal before its winner first changed.
   */
  order: string[];
}

/** A finished game as a disqualification after it needs it (docs/fairness.md). */
export interface FinishedGame {
  gameId: string;
  roundsPlayed: number;
  winnerUserId: string | undefined;
  /** The revealed seed; undefined for a game recorded before seeds existed (no fallback). */
  drawSeed: string | undefined;
  draw: GameDraw | undefined;
  /** The prize's order as fixed at the reveal; undefined for a game ended before issue 37. */
  drawOrder: string[] | undefined;
  participants: {
    userId: string;
    username: string;
    eliminatedInRound: number;
    lostDraw: boolean;
    disqualificationReason: string | undefined;
  }[];
}

/**
 * The durable record of games (`games`, `game_participants`, `game_rounds`, `player_votes`),
 * written by the engine at the game's milestones — never per vote: a round's votes go in one
 * bulk write when it is resolved. Every method is idempotent: a replica that takes a game over
 * may repeat the call its predecessor made (or half made), and the records end the same.
 */
export interface GameRecords {
  gameStarted(game: GameStartedRecord): Promise<void>;
  participantsJoined(gameId: string, participants: ParticipantRecord[]): Promise<void>;
  roundResolved(round: RoundResolvedRecord): Promise<void>;
  gameEnded(end: GameEndedRecord): Promise<void>;
  /** Marks participants disqualified with their reasons (idempotent: the first reason stands). */
  participantsDisqualified(
    gameId: string,
    marks: readonly { userId: string; reason: string }[],
  ): Promise<void>;
  /** The tournament's latest game if it is finished (undefined otherwise). */
  finishedGame(tournamentId: string): Promise<FinishedGame | undefined>;
  /**
   * A finished game's outcome re-decided after a disqualification (no winner: `winner`
   * undefined): the game's winner, the disqualified winner out in the last round, the next
   * eligible in the prize's order in. The draw and its order stay as they were revealed.
   */
  winnerRedecided(change: WinnerChange): Promise<void>;
}
