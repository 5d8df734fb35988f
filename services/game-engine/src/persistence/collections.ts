import { defineCollection, required, Schema, type DocumentOf } from '@underdog/documents';

const count = { type: Number, required: true, min: 0 } as const;
const roundNumber = { type: Number, required: true, min: 1 } as const;

/** A tournament as it was when its game started: history and details need no other service. */
export interface TournamentSnapshot {
  id: string;
  title: string;
  prize?: string;
  startAt: Date;
}

const tournamentSnapshot = new Schema(
  { id: required(String), title: required(String), prize: String, startAt: required(Date) },
  { _id: false },
);

/** How several survivors of the last round were narrowed to one winner (auditable). */
const drawRecord = new Schema(
  {
    seed: required(String),
    candidateUserIds: { type: [String], required: true },
    winnerUserId: required(String),
  },
  { _id: false },
);

export const gameStatuses = ['live', 'finished'] as const;
export type GameStatus = (typeof gameStatuses)[number];

/** The spec's `games` entity, id = the game id, plus what the reads need without joins. */
export const gamesCollection = defineCollection({
  name: 'games',
  schema: new Schema({
    tournamentId: required(String),
    tournament: { type: tournamentSnapshot, required: true },
    status: { type: String, enum: gameStatuses, required: true },
    /** The round being played while live; the last round played once finished. */
    currentRound: roundNumber,
    /** Rounds resolved so far. */
    roundsPlayed: count,
    totalRounds: roundNumber,
    roundTimeSeconds: { type: Number, required: true, min: 1 },
    participantCount: count,
    offlineParticipantCount: count,
    winnerId: String,
    winnerUsername: String,
    winnerPrize: String,
    draw: drawRecord,
    /**
     * The seed of the game's final draw (committed in `GameStarted`, revealed in `GameEnded`);
     * kept for every game, so a disqualification after the game can redo a draw with it.
     */
    drawSeed: String,
    /**
     * SHA-256 of the seed (hex), written with the game's document at its start and never
     * replaced: the seed revealed at the end must hash to it (issue 37).
     */
    drawCommitment: String,
    /**
     * The prize's order fixed at the reveal (`prizeOrder`): a disqualification after the game
     * gives the prize to the next eligible in it, never a new draw (docs/fairness.md).
     */
    drawOrder: { type: [String], default: undefined },
    startedAt: required(Date),
    endedAt: Date,
    createdAt: required(Date),
  }),
  indexes: [{ fields: { tournamentId: 1 } }, { fields: { status: 1, endedAt: -1 } }],
});

/** The spec's `game_participants` entity, id `${gameId}:${userId}`. */
export const participantsCollection = defineCollection({
  name: 'game_participants',
  schema: new Schema({
    gameId: required(String),
    userId: required(String),
    username: required(String),
    isEliminated: required(Boolean),
    /** Absent while the participant is still in. */
    eliminatedInRound: { type: Number, min: 1 },
    /** Survived the last round but lost the seeded draw (eliminated in that round, by the draw). */
    lostDraw: Boolean,
    /** Set when an administrator disqualified the participant (during or after the game). */
    disqualificationReason: String,
    isOfflinePlayer: required(Boolean),
    joinedAt: required(Date),
  }),
  indexes: [{ fields: { gameId: 1, userId: 1 }, unique: true }],
});

const roundImage = new Schema(
  { id: required(String), url: required(String), alt: required(String) },
  { _id: false },
);

const imageResult = new Schema(
  {
    imageId: required(String),
    votes: count,
    percentage: { type: Number, required: true, min: 0, max: 100 },
    isWinner: required(Boolean),
  },
  { _id: false },
);

/** The spec's `game_rounds` entity, id `${gameId}:${roundNumber}`; written once resolved. */
export const roundsCollection = defineCollection({
  name: 'game_rounds',
  schema: new Schema({
    gameId: required(String),
    roundNumber,
    images: { type: [roundImage], required: true },
    timeLimit: { type: Number, required: true, min: 1 },
    status: { type: String, enum: ['finished'] as const, required: true },
    results: { type: [imageResult], required: true },
    totalVotes: count,
    eliminatedCount: count,
    startedAt: required(Date),
    endedAt: required(Date),
    createdAt: required(Date),
  }),
  indexes: [{ fields: { gameId: 1, roundNumber: 1 }, unique: true }],
});

/** The spec's `player_votes` entity, id `${roundId}:${userId}`: one vote per user per round. */
export const votesCollection = defineCollection({
  name: 'player_votes',
  schema: new Schema({
    gameId: required(String),
    roundId: required(String),
    roundNumber,
    userId: required(String),
    username: required(String),
    imageId: required(String),
    isWinningVote: required(Boolean),
    isOfflinePlayer: required(Boolean),
    votedAt: required(Date),
  }),
  indexes: [{ fields: { roundId: 1, userId: 1 }, unique: true }, { fields: { gameId: 1 } }],
});

export type GameDocument = DocumentOf<typeof gamesCollection>;
export type ParticipantDocument = DocumentOf<typeof participantsCollection>;
export type RoundDocument = DocumentOf<typeof roundsCollection>;
export type VoteDocument = DocumentOf<typeof votesCollection>;
export type DrawRecord = NonNullable<GameDocument['draw']>;

export const participantId = (gameId: string, userId: string) => `${gameId}:${userId}`;
export const roundId = (gameId: string, roundNumber: number) => `${gameId}:${roundNumber}`;
export const voteId = (round: string, userId: string) => `${round}:${userId}`;
