// Over 300 lines: one adapter, a method per milestone of a game, each a few document writes.
import {
  DuplicateKeyError,
  insertOnce,
  type Collection,
  type DocumentStore,
  type Filter,
  type Identified,
} from '@underdog/documents';
import { drawSeedCommitment } from '@underdog/fair-play';
import { systemClock, type Clock } from '@underdog/kit';
import {
  gamesCollection,
  participantId,
  participantsCollection,
  roundId,
  roundsCollection,
  voteId,
  votesCollection,
  type GameDocument,
  type ParticipantDocument,
  type RoundDocument,
  type VoteDocument,
} from './collections';
import {
  DrawCommitmentMismatchError,
  type FinishedGame,
  type GameDraw,
  type GameEndedRecord,
  type GameRecords,
  type GameStartedRecord,
  type ParticipantRecord,
  type RoundResolvedRecord,
  type WinnerChange,
} from './game-records-port';

/** The draw's own fields, as they are stored and read back. */
const drawOf = (draw: GameDraw): GameDraw => ({
  seed: draw.seed,
  candidateUserIds: [...draw.candidateUserIds],
  winnerUserId: draw.winnerUserId,
});

export interface GameRecordsOptions {
  /** Ids per `$in` of a bulk update. */
  batchSize?: number;
  /**
   * Documents per `insertMany`. Validating and serialising a document takes the event loop
   * ~0.15 ms on this machine, and the engine runs every game of the replica on one loop: 1,000
   * at once held another game's tally back ~170 ms when two games closed together; 100 at once
   * is a slice of ~15 ms (docs/benchmarks.md).
   */
  insertBatchSize?: number;
  /** The time stamp of created records; default: the system clock. */
  clock?: Clock;
}

const DEFAULT_BATCH_SIZE = 1000;
const DEFAULT_INSERT_BATCH_SIZE = 100;

export function createGameRecords(
  documents: DocumentStore,
  options: GameRecordsOptions = {},
): GameRecords {
  return new DocumentGameRecords(documents, options);
}

class DocumentGameRecords implements GameRecords {
  private readonly games: Collection<GameDocument>;
  private readonly participants: Collection<ParticipantDocument>;
  private readonly rounds: Collection<RoundDocument>;
  private readonly votes: Collection<VoteDocument>;
  private readonly batchSize: number;
  private readonly insertBatchSize: number;
  private readonly clock: Clock;

  constructor(documents: DocumentStore, options: GameRecordsOptions) {
    this.games = documents.collection(gamesCollection);
    this.participants = documents.collection(participantsCollection);
    this.rounds = documents.collection(roundsCollection);
    this.votes = documents.collection(votesCollection);
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.insertBatchSize = options.insertBatchSize ?? DEFAULT_INSERT_BATCH_SIZE;
    this.clock = options.clock ?? systemClock;
  }

  async gameStarted(game: GameStartedRecord): Promise<void> {
    const { tournament } = game;
    await insertOnce(this.games, {
      id: game.gameId,
      tournamentId: tournament.id,
      tournament: {
        id: tournament.id,
        title: tournament.title,
        ...(tournament.prize === undefined ? {} : { prize: tournament.prize }),
        startAt: tournament.startAt,
      },
      status: 'live',
      currentRound: 1,
      roundsPlayed: 0,
      totalRounds: game.totalRounds,
      roundTimeSeconds: game.roundTimeSeconds,
      participantCount: 0,
      offlineParticipantCount: 0,
      startedAt: game.startedAt,
      ...(game.drawCommitment ? { drawCommitment: game.drawCommitment } : {}),
      createdAt: this.clock.now(),
    });
    await this.participantsJoined(game.gameId, game.participants);
  }

  async participantsJoined(gameId: string, participants: ParticipantRecord[]): Promise<void> {
    await this.insertMissing(
      this.participants,
      participants.map((participant) => ({
        id: participantId(gameId, participant.userId),
        gameId,
        userId: participant.userId,
        username: participant.username,
        isEliminated: (participant.eliminatedInRound ?? 0) > 0,
        ...((participant.eliminatedInRound ?? 0) > 0
          ? { eliminatedInRound: participant.eliminatedInRound }
          : {}),
        ...(participant.disqualificationReason === undefined
          ? {}
          : { disqualificationReason: participant.disqualificationReason }),
        isOfflinePlayer: participant.isOfflinePlayer,
        joinedAt: participant.joinedAt,
      })),
    );
    // Counted rather than incremented, so a repeated call cannot count anyone twice.
    const [participantCount, offlineParticipantCount] = await Promise.all([
      this.participants.count({ gameId }),
      this.participants.count({ gameId, isOfflinePlayer: true }),
    ]);
    await this.games.updateOne(
      { id: gameId },
      { $set: { participantCount, offlineParticipantCount } },
    );
  }

  async roundResolved(round: RoundResolvedRecord): Promise<void> {
    const { gameId, roundNumber } = round;
    const id = roundId(gameId, roundNumber);
    await this.insertMissing(
      this.votes,
      round.votes.map((vote) => ({
        id: voteId(id, vote.userId),
        gameId,
        roundId: id,
        roundNumber,
        userId: vote.userId,
        username: vote.username,
        imageId: vote.imageId,
        isWinningVote: vote.isWinningVote,
        isOfflinePlayer: vote.isOfflinePlayer,
        votedAt: vote.votedAt,
      })),
    );
    const eliminatedIds = round.eliminated.map(({ userId }) => userId);
    for (const userIds of chunks(eliminatedIds, this.batchSize)) {
      await this.participants.updateMany(
        { gameId, userId: { $in: userIds }, isEliminated: false },
        { $set: { isEliminated: true, eliminatedInRound: roundNumber } },
      );
    }
    // The round document last: once it exists, its votes and eliminations are all stored.
    await insertOnce(this.rounds, {
      id,
      gameId,
      roundNumber,
      images: round.images.map(({ id: imageId, url, alt }) => ({ id: imageId, url, alt })),
      timeLimit: round.timeLimit,
      status: 'finished',
      results: round.results.map(({ imageId, votes, percentage, isWinner }) => ({
        imageId,
        votes,
        percentage,
        isWinner,
      })),
      totalVotes: round.votes.length,
      eliminatedCount: eliminatedIds.length,
      startedAt: round.startedAt,
      endedAt: round.endedAt,
      createdAt: this.clock.now(),
    });
    const game = await this.games.findById(gameId);
    if (!game) return;
    await this.games.updateOne(
      { id: gameId, roundsPlayed: { $lt: roundNumber } },
      {
        $set: {
          roundsPlayed: roundNumber,
          currentRound: Math.min(roundNumber + 1, game.totalRounds),
        },
      },
    );
  }

  async gameEnded(end: GameEndedRecord): Promise<void> {
    const game = await this.games.findById(end.gameId);
    if (!game) return;
    // The reveal checked against the commitment recorded at the start (issue 37): a seed
    // replaced in the live store since is refused here too, and the game's end waits for it.
    if (
      end.drawSeed !== undefined &&
      game.drawCommitment !== undefined &&
      drawSeedCommitment(end.drawSeed) !== game.drawCommitment
    ) {
      throw new DrawCommitmentMismatchError(
        `game ${end.gameId}: the revealed seed does not hash to the recorded commitment`,
      );
    }
    const lastRound = Math.max(game.roundsPlayed, 1);
    if (end.draw) {
      const losers = end.draw.candidateUserIds.filter((id) => id !== end.draw?.winnerUserId);
      for (const userIds of chunks(losers, this.batchSize)) {
        await this.participants.updateMany(
          { gameId: end.gameId, userId: { $in: userIds }, isEliminated: false },
          { $set: { isEliminated: true, eliminatedInRound: lastRound, lostDraw: true } },
        );
      }
    }
    const { winner, draw } = end;
    await this.games.updateOne(
      { id: end.gameId, status: 'live' },
      {
        $set: {
          status: 'finished',
          currentRound: lastRound,
          endedAt: end.endedAt,
          ...(end.drawSeed ? { drawSeed: end.drawSeed } : {}),
          ...(end.drawOrder ? { drawOrder: [...end.drawOrder] } : {}),
          ...(winner
            ? {
                winnerId: winner.userId,
                winnerUsername: winner.username,
                ...(winner.prize === undefined ? {} : { winnerPrize: winner.prize }),
              }
            : {}),
          ...(draw ? { draw: drawOf(draw) } : {}),
        },
      },
    );
  }

  async participantsDisqualified(
    gameId: string,
    marks: readonly { userId: string; reason: string }[],
  ): Promise<void> {
    for (const { userId, reason } of marks) {
      await this.participants.updateOne(
        { id: participantId(gameId, userId), disqualificationReason: { $exists: false } },
        { $set: { disqualificationReason: reason } },
      );
    }
  }

  async finishedGame(tournamentId: string): Promise<FinishedGame | undefined> {
    const game = await this.games.findOne({ tournamentId }, { sort: { startedAt: -1 } });
    if (!game || game.status !== 'finished') return undefined;
    const participants = await this.participants.find({ gameId: game.id });
    return {
      gameId: game.id,
      roundsPlayed: game.roundsPlayed,
      winnerUserId: game.winnerId ?? undefined,
      drawSeed: game.drawSeed ?? game.draw?.seed ?? undefined,
      draw: game.draw ? drawOf(game.draw) : undefined,
      drawOrder: game.drawOrder ? [...game.drawOrder] : undefined,
      participants: participants.map((participant) => ({
        userId: participant.userId,
        username: participant.username,
        eliminatedInRound: participant.eliminatedInRound ?? 0,
        lostDraw: participant.lostDraw === true,
        disqualificationReason: participant.disqualificationReason ?? undefined,
      })),
    };
  }

  async winnerRedecided({
    gameId,
    previousWinnerId,
    lastRound,
    winner,
    order,
  }: WinnerChange): Promise<void> {
    await this.participants.updateOne(
      { id: participantId(gameId, previousWinnerId), isEliminated: false },
      { $set: { isEliminated: true, eliminatedInRound: Math.max(lastRound, 1) } },
    );
    if (winner) {
      await this.participants.updateOne(
        { id: participantId(gameId, winner.userId) },
        { $set: { isEliminated: false }, $unset: { eliminatedInRound: true, lostDraw: true } },
      );
    }
    await this.games.updateOne(
      { id: gameId },
      winner
        ? {
            $set: {
              winnerId: winner.userId,
              winnerUsername: winner.username,
              drawOrder: [...order],
            },
          }
        : {
            $set: { drawOrder: [...order] },
            $unset: { winnerId: true, winnerUsername: true, winnerPrize: true },
          },
    );
  }

  /**
   * Bulk-inserts the documents not stored yet. The usual first call is one `insertMany` per
   * batch; a repeated one finds which are there and inserts the rest.
   */
  private async insertMissing<T extends Identified>(
    collection: Collection<T>,
    documents: readonly T[],
  ): Promise<void> {
    for (const batch of chunks(documents, this.insertBatchSize)) {
      let pending = batch;
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        try {
          await collection.insertMany(pending);
          break;
        } catch (error) {
          if (!(error instanceof DuplicateKeyError) || attempt >= 3) throw error;
        }
        const stored = await collection.find({
          id: { $in: pending.map(({ id }) => id) },
        } as Filter<T>);
        const storedIds = new Set(stored.map(({ id }) => id));
        pending = pending.filter(({ id }) => !storedIds.has(id));
      }
    }
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) {
    result.push(items.slice(start, start + size));
  }
  return result;
}
