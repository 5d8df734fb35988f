import {
  timestampDate,
  type GameDetails,
  type GameStatistics,
  type RecordedTournament,
  type TournamentHistoryItem,
  type Actor,
} from '@underdog/proto';
import { actorOf, delegate } from './actors';
import type { GatewayClients } from './clients';
import type { RequestOrigin } from './session';
import type { Tournaments, TournamentView } from './tournaments';
import type {
  RecordedDrawView,
  TournamentDetailsView,
  TournamentHistoryItemView,
  TournamentStatisticsView,
  WinnerView,
} from './record-views';

/** The views of the records, where the edges' importers find them. */
export * from './record-views';

/**
 * The reads of played games behind both edges. The records are the game-engine's; the
 * tournament's own fields (status above all) are the tournament service's, so a tournament
 * without a game yet still has statistics: no rounds, no winner, its registrants so far.
 */
export class GameRecordsReads {
  constructor(
    private readonly clients: Pick<GatewayClients, 'game'>,
    private readonly tournaments: Tournaments,
  ) {}

  /** Public. 404 TOURNAMENT_NOT_FOUND for an unknown tournament. */
  async statistics(origin: RequestOrigin, tournamentId: string): Promise<TournamentStatisticsView> {
    const actor = await actorOf(origin);
    const [tournament, { statistics }] = await Promise.all([
      this.tournaments.get(tournamentId),
      delegate(this.clients.game.getTournamentStatistics({ actor, tournamentId })),
    ]);
    if (statistics) return toStatisticsView(tournament, statistics, actor);
    return noGameStatistics(tournament, await this.registrants(actor, tournamentId));
  }

  /**
   * Before the game, who has joined so far, online and offline, as the engine counts them; none
   * when the engine does not know the tournament yet (the tournament's own count is used then).
   */
  private async registrants(
    actor: Awaited<ReturnType<typeof actorOf>>,
    tournamentId: string,
  ): Promise<{ total: number; offline: number } | undefined> {
    try {
      const { game } = await this.clients.game.getLiveGame({ actor, tournamentId });
      return game
        ? { total: game.participantCount, offline: game.offlineParticipantCount }
        : undefined;
    } catch {
      return undefined;
    }
  }

  /** Admin only: finished games, the most recently ended first. */
  async history(origin: RequestOrigin): Promise<TournamentHistoryItemView[]> {
    const { items } = await delegate(
      this.clients.game.listTournamentHistory({ actor: await actorOf(origin) }),
    );
    return items.map(toHistoryItemView);
  }

  /** Admin only. 404 TOURNAMENT_NOT_FOUND for an unknown tournament. */
  async details(origin: RequestOrigin, tournamentId: string): Promise<TournamentDetailsView> {
    // The admin check first, so a non-admin learns nothing about which tournaments exist.
    const { details } = await delegate(
      this.clients.game.getTournamentDetails({ actor: await actorOf(origin), tournamentId }),
    );
    const tournament = await this.tournaments.get(tournamentId);
    if (!details) {
      return {
        tournament,
        winner: null,
        totalPlayers: tournament.participantCount,
        rounds: [],
        draw: null,
      };
    }
    return toDetailsView(tournament, details);
  }
}

const winnerOf = (username: string | undefined): WinnerView | null =>
  username === undefined ? null : { username };

const drawOf = (game: {
  drawCommitment: string;
  drawSeed: string;
  drawOrder: string[];
}): RecordedDrawView | null =>
  game.drawCommitment === ''
    ? null
    : {
        commitment: game.drawCommitment,
        seed: game.drawSeed === '' ? null : game.drawSeed,
        order: [...game.drawOrder],
      };

/**
 * The tournament as its game's records show it: finished once its game is, even while the
 * tournament service has not yet heard `game_ended` — the finished state and the winner are
 * seen together (the engine records the end before announcing it).
 */
function asItsGameEnded(tournament: TournamentView, gameFinished: boolean): TournamentView {
  return gameFinished && tournament.status === 'live'
    ? { ...tournament, status: 'finished' }
    : tournament;
}

/**
 * The statistics are public, a disqualification's reason is not: anyone sees that a participant
 * was disqualified; the reason (an administrator's words about a person) only an administrator
 * and the participant themself.
 */
function mayReadReason(actor: Actor, username: string): boolean {
  return actor.role === 'admin' || (actor.username !== '' && actor.username === username);
}

function toStatisticsView(
  tournament: TournamentView,
  statistics: GameStatistics,
  actor: Actor,
): TournamentStatisticsView {
  return {
    tournament: asItsGameEnded(tournament, statistics.finished),
    totalRounds: statistics.roundsPlayed,
    participantBreakdown: {
      total: statistics.participantCount,
      online: statistics.onlineParticipantCount,
      offline: statistics.offlineParticipantCount,
    },
    winner: winnerOf(statistics.winnerUsername),
    participantCount: statistics.participantCount,
    participants: statistics.participants.map((participant) => ({
      username: participant.username,
      isEliminated: participant.isEliminated,
      eliminatedInRound: participant.eliminatedInRound === 0 ? null : participant.eliminatedInRound,
      isOfflinePlayer: participant.isOfflinePlayer,
      isDisqualified: participant.isDisqualified,
      disqualificationReason: mayReadReason(actor, participant.username)
        ? (participant.disqualificationReason ?? null)
        : null,
    })),
    disqualifiedCount: statistics.disqualifiedCount,
    draw: drawOf(statistics),
  };
}

/**
 * Before the game: the players who joined live and the offline registrants, as the engine counts
 * them; without the engine's counts, the tournament's own count, all offline (what it counted
 * before live joins were reported).
 */
function noGameStatistics(
  tournament: TournamentView,
  registrants: { total: number; offline: number } | undefined,
): TournamentStatisticsView {
  const total = registrants?.total ?? tournament.participantCount;
  const offline = registrants?.offline ?? tournament.participantCount;
  return {
    tournament,
    totalRounds: 0,
    participantBreakdown: { total, online: total - offline, offline },
    winner: null,
    participantCount: total,
    participants: [],
    disqualifiedCount: 0,
    draw: null,
  };
}

function toRecordedTournamentView(tournament: RecordedTournament | undefined) {
  if (!tournament?.startAt)
    throw new Error('the game-engine returned a game without its tournament');
  return {
    id: tournament.id,
    title: tournament.title,
    prize: tournament.prize ?? null,
    startAt: timestampDate(tournament.startAt).toISOString(),
  };
}

function toHistoryItemView(item: TournamentHistoryItem): TournamentHistoryItemView {
  return {
    tournament: toRecordedTournamentView(item.tournament),
    ...(item.winnerUsername === undefined ? {} : { winner: { username: item.winnerUsername } }),
    totalPlayers: item.totalPlayers,
    totalRounds: item.roundsPlayed,
    endedAt: item.endedAt ? timestampDate(item.endedAt).toISOString() : '',
  };
}

function toDetailsView(tournament: TournamentView, details: GameDetails): TournamentDetailsView {
  return {
    tournament: asItsGameEnded(tournament, details.finished),
    winner: winnerOf(details.winnerUsername),
    totalPlayers: details.totalPlayers,
    rounds: details.rounds.map((round) => ({
      roundNumber: round.roundNumber,
      images: round.images.map(({ id, alt }) => ({ id, alt })),
      votes: round.votes.map((vote) => ({
        username: vote.username,
        imageId: vote.imageId,
        votedAt: vote.votedAt ? timestampDate(vote.votedAt).toISOString() : '',
        isOfflinePlayer: vote.isOfflinePlayer,
      })),
      eliminatedPlayers: round.eliminatedPlayers.map((player) => ({
        username: player.username,
        isOfflinePlayer: player.isOfflinePlayer,
        disqualificationReason: player.disqualificationReason ?? null,
      })),
    })),
    draw: drawOf(details),
  };
}
