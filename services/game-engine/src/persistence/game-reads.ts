import type { Collection, DocumentStore } from '@underdog/documents';
import {
  gamesCollection,
  participantsCollection,
  roundsCollection,
  votesCollection,
  type GameDocument,
  type GameStatus,
  type ParticipantDocument,
  type RoundDocument,
  type TournamentSnapshot,
  type VoteDocument,
} from './collections';

/**
 * The game's draw as recorded (docs/fairness.md, issue 37): the commitment (set as the game
 * began; '' for a game recorded before it was), the seed once finished ('' before), and the
 * prize's order fixed at the reveal, as usernames ([] before the end, or for a game ended before
 * the order was recorded).
 */
export interface RecordedDraw {
  commitment: string;
  seed: string;
  order: string[];
}

export interface ParticipantStanding {
  username: string;
  isEliminated: boolean;
  /** Absent while still in. */
  eliminatedInRound?: number;
  isOfflinePlayer: boolean;
  /** Set when an administrator disqualified the participant. */
  disqualificationReason?: string;
}

/** A tournament's game as its statistics show it (the tournament's own fields come from its service). */
export interface GameStatistics {
  gameId: string;
  status: GameStatus;
  /** Rounds resolved so far. */
  roundsPlayed: number;
  participantBreakdown: { total: number; online: number; offline: number };
  winner: { username: string } | null;
  participants: ParticipantStanding[];
  /** Participants disqualified by an administrator. */
  disqualifiedCount: number;
  draw: RecordedDraw;
}

export interface HistoryEntry {
  gameId: string;
  tournament: TournamentSnapshot;
  winner?: { username: string };
  totalPlayers: number;
  roundsPlayed: number;
  endedAt: Date;
}

export interface RoundDetails {
  roundNumber: number;
  images: { id: string; url: string; alt: string }[];
  votes: { username: string; imageId: string; votedAt: Date; isOfflinePlayer: boolean }[];
  eliminatedPlayers: {
    username: string;
    isOfflinePlayer: boolean;
    /** Set when the player went out by a disqualification. */
    disqualificationReason?: string;
  }[];
}

export interface GameDetails {
  gameId: string;
  status: GameStatus;
  tournament: TournamentSnapshot;
  winner: { username: string } | null;
  totalPlayers: number;
  rounds: RoundDetails[];
  draw: RecordedDraw;
}

export interface GameReads {
  /** The tournament's (latest) game, or null while it has none. */
  statistics(tournamentId: string): Promise<GameStatistics | null>;
  /** Finished games, the most recently ended first. */
  history(options?: { limit?: number }): Promise<HistoryEntry[]>;
  details(tournamentId: string): Promise<GameDetails | null>;
}

export const DEFAULT_HISTORY_LIMIT = 100;

export function createGameReads(documents: DocumentStore): GameReads {
  return new DocumentGameReads(documents);
}

class DocumentGameReads implements GameReads {
  private readonly games: Collection<GameDocument>;
  private readonly participants: Collection<ParticipantDocument>;
  private readonly rounds: Collection<RoundDocument>;
  private readonly votes: Collection<VoteDocument>;

  constructor(documents: DocumentStore) {
    this.games = documents.collection(gamesCollection);
    this.participants = documents.collection(participantsCollection);
    this.rounds = documents.collection(roundsCollection);
    this.votes = documents.collection(votesCollection);
  }

  async statistics(tournamentId: string): Promise<GameStatistics | null> {
    const game = await this.latestGame(tournamentId);
    if (!game) return null;
    const participants = await this.participants.find(
      { gameId: game.id },
      { sort: { joinedAt: 1, userId: 1 } },
    );
    const offline = participants.filter((participant) => participant.isOfflinePlayer).length;
    return {
      gameId: game.id,
      status: game.status,
      roundsPlayed: game.roundsPlayed,
      participantBreakdown: {
        total: participants.length,
        online: participants.length - offline,
        offline,
      },
      winner: winnerOf(game),
      participants: participants.map((participant) => ({
        username: participant.username,
        isEliminated: participant.isEliminated,
        ...(participant.eliminatedInRound == null
          ? {}
          : { eliminatedInRound: participant.eliminatedInRound }),
        isOfflinePlayer: participant.isOfflinePlayer,
        ...(participant.disqualificationReason == null
          ? {}
          : { disqualificationReason: participant.disqualificationReason }),
      })),
      disqualifiedCount: participants.filter(
        (participant) => participant.disqualificationReason != null,
      ).length,
      draw: recordedDraw(game, participants),
    };
  }

  async history(options: { limit?: number } = {}): Promise<HistoryEntry[]> {
    const games = await this.games.find(
      { status: 'finished' },
      { sort: { endedAt: -1, id: 1 }, limit: options.limit ?? DEFAULT_HISTORY_LIMIT },
    );
    return games.map((game) => {
      const winner = winnerOf(game);
      return {
        gameId: game.id,
        tournament: snapshotOf(game),
        ...(winner ? { winner } : {}),
        totalPlayers: game.participantCount,
        roundsPlayed: game.roundsPlayed,
        endedAt: game.endedAt ?? game.startedAt,
      };
    });
  }

  async details(tournamentId: string): Promise<GameDetails | null> {
    const game = await this.latestGame(tournamentId);
    if (!game) return null;
    const [participants, rounds, votes] = await Promise.all([
      this.participants.find({ gameId: game.id }),
      this.rounds.find({ gameId: game.id }, { sort: { roundNumber: 1 } }),
      this.votes.find({ gameId: game.id }, { sort: { roundNumber: 1, votedAt: 1, userId: 1 } }),
    ]);
    const votesByRound = groupBy(votes, (vote) => vote.roundNumber);
    const eliminatedByRound = groupBy(
      participants.filter((participant) => participant.eliminatedInRound !== undefined),
      (participant) => participant.eliminatedInRound ?? 0,
    );
    return {
      gameId: game.id,
      status: game.status,
      tournament: snapshotOf(game),
      winner: winnerOf(game),
      totalPlayers: participants.length,
      rounds: rounds.map((round) => ({
        roundNumber: round.roundNumber,
        images: round.images.map(({ id, url, alt }) => ({ id, url, alt })),
        votes: (votesByRound.get(round.roundNumber) ?? []).map((vote) => ({
          username: vote.username,
          imageId: vote.imageId,
          votedAt: vote.votedAt,
          isOfflinePlayer: vote.isOfflinePlayer,
        })),
        eliminatedPlayers: (eliminatedByRound.get(round.roundNumber) ?? [])
          .sort((a, b) => a.username.localeCompare(b.username))
          .map(({ username, isOfflinePlayer, disqualificationReason }) => ({
            username,
            isOfflinePlayer,
            ...(disqualificationReason == null ? {} : { disqualificationReason }),
          })),
      })),
      draw: recordedDraw(game, participants),
    };
  }

  private latestGame(tournamentId: string): Promise<GameDocument | null> {
    return this.games.findOne({ tournamentId }, { sort: { startedAt: -1 } });
  }
}

/** The stored snapshot without the nulls its schema allows. */
function snapshotOf({ tournament: { prize, ...tournament } }: GameDocument): TournamentSnapshot {
  return prize == null ? tournament : { ...tournament, prize };
}

function recordedDraw(game: GameDocument, participants: ParticipantDocument[]): RecordedDraw {
  const names = new Map(
    participants.map((participant) => [participant.userId, participant.username]),
  );
  const finished = game.status === 'finished';
  return {
    commitment: game.drawCommitment ?? '',
    seed: finished ? (game.drawSeed ?? '') : '',
    order: finished ? (game.drawOrder ?? []).map((userId) => names.get(userId) ?? userId) : [],
  };
}

function winnerOf(game: GameDocument): { username: string } | null {
  return game.winnerUsername == null ? null : { username: game.winnerUsername };
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}
