import type { CollectionDefinition } from '@underdog/documents';

/** A tournament as it was when its game started: history and details need no other service. */
export interface TournamentSnapshot {
  id: string;
  title: string;
  prize?: string;
  startAt: Date;
}

/** How several survivors of the last round were narrowed to one winner (auditable). */
export interface DrawRecord {
  seed: string;
  candidateUserIds: string[];
  winnerUserId: string;
}

export type GameStatus = 'live' | 'finished';

/** The spec's `games` entity, id = the game id, plus what the reads need without joins. */
export interface GameDocument {
  id: string;
  tournamentId: string;
  tournament: TournamentSnapshot;
  status: GameStatus;
  /** The round being played while live; the last round played once finished. */
  currentRound: number;
  /** Rounds resolved so far. */
  roundsPlayed: number;
  totalRounds: number;
  roundTimeSeconds: number;
  participantCount: number;
  offlineParticipantCount: number;
  winnerId?: string;
  winnerUsername?: string;
  winnerPrize?: string;
  draw?: DrawRecord;
  startedAt: Date;
  endedAt?: Date;
  createdAt: Date;
}

/** The spec's `game_participants` entity, id `${gameId}:${userId}`. */
export interface ParticipantDocument {
  id: string;
  gameId: string;
  userId: string;
  username: string;
  isEliminated: boolean;
  /** Absent while the participant is still in. */
  eliminatedInRound?: number;
  /** Survived the last round but lost the seeded draw (eliminated in that round, by the draw). */
  lostDraw?: boolean;
  isOfflinePlayer: boolean;
  joinedAt: Date;
}

export interface RoundImageRecord {
  id: string;
  url: string;
  alt: string;
}

export interface ImageResultRecord {
  imageId: string;
  votes: number;
  percentage: number;
  isWinner: boolean;
}

/** The spec's `game_rounds` entity, id `${gameId}:${roundNumber}`; written once resolved. */
export interface RoundDocument {
  id: string;
  gameId: string;
  roundNumber: number;
  images: RoundImageRecord[];
  timeLimit: number;
  status: 'finished';
  results: ImageResultRecord[];
  totalVotes: number;
  eliminatedCount: number;
  startedAt: Date;
  endedAt: Date;
  createdAt: Date;
}

/** The spec's `player_votes` entity, id `${roundId}:${userId}`: one vote per user per round. */
export interface VoteDocument {
  id: string;
  gameId: string;
  roundId: string;
  roundNumber: number;
  userId: string;
  username: string;
  imageId: string;
  isWinningVote: boolean;
  isOfflinePlayer: boolean;
  votedAt: Date;
}

export const gamesCollection: CollectionDefinition<GameDocument> = {
  name: 'games',
  indexes: [{ fields: { tournamentId: 1 } }, { fields: { status: 1, endedAt: -1 } }],
};

export const participantsCollection: CollectionDefinition<ParticipantDocument> = {
  name: 'game_participants',
  indexes: [{ fields: { gameId: 1, userId: 1 }, unique: true }],
};

export const roundsCollection: CollectionDefinition<RoundDocument> = {
  name: 'game_rounds',
  indexes: [{ fields: { gameId: 1, roundNumber: 1 }, unique: true }],
};

export const votesCollection: CollectionDefinition<VoteDocument> = {
  name: 'player_votes',
  indexes: [{ fields: { roundId: 1, userId: 1 }, unique: true }, { fields: { gameId: 1 } }],
};

export const participantId = (gameId: string, userId: string) => `${gameId}:${userId}`;
export const roundId = (gameId: string, roundNumber: number) => `${gameId}:${roundNumber}`;
export const voteId = (round: string, userId: string) => `${round}:${userId}`;
