import { requireAdmin } from '@underdog/kit';
import { GameService, timestampFromDate } from '@underdog/proto';
import type { ServiceImpl } from '@underdog/rpc';
import type { GameReads, TournamentSnapshot } from './persistence';

export type RecordsRpc = Pick<
  ServiceImpl<typeof GameService>,
  'getTournamentStatistics' | 'listTournamentHistory' | 'getTournamentDetails'
>;

const recordedTournament = (tournament: TournamentSnapshot) => ({
  id: tournament.id,
  title: tournament.title,
  ...(tournament.prize === undefined ? {} : { prize: tournament.prize }),
  startAt: timestampFromDate(tournament.startAt),
});

/** GameService's reads of the records: each handler checks the actor, reads and translates. */
export function recordsRpc(reads: GameReads): RecordsRpc {
  return {
    getTournamentStatistics: async ({ tournamentId }) => {
      const statistics = await reads.statistics(tournamentId);
      if (!statistics) return {};
      return {
        statistics: {
          gameId: statistics.gameId,
          finished: statistics.status === 'finished',
          roundsPlayed: statistics.roundsPlayed,
          participantCount: statistics.participantBreakdown.total,
          onlineParticipantCount: statistics.participantBreakdown.online,
          offlineParticipantCount: statistics.participantBreakdown.offline,
          ...(statistics.winner ? { winnerUsername: statistics.winner.username } : {}),
          participants: statistics.participants.map((participant) => ({
            username: participant.username,
            isEliminated: participant.isEliminated,
            eliminatedInRound: participant.eliminatedInRound ?? 0,
            isOfflinePlayer: participant.isOfflinePlayer,
            isDisqualified: participant.disqualificationReason !== undefined,
            ...(participant.disqualificationReason === undefined
              ? {}
              : { disqualificationReason: participant.disqualificationReason }),
          })),
          disqualifiedCount: statistics.disqualifiedCount,
          drawCommitment: statistics.draw.commitment,
          drawSeed: statistics.draw.seed,
          drawOrder: statistics.draw.order,
        },
      };
    },
    listTournamentHistory: async ({ actor, limit }) => {
      requireAdmin(actor);
      const entries = await reads.history(limit > 0 ? { limit } : {});
      return {
        items: entries.map((entry) => ({
          gameId: entry.gameId,
          tournament: recordedTournament(entry.tournament),
          ...(entry.winner ? { winnerUsername: entry.winner.username } : {}),
          totalPlayers: entry.totalPlayers,
          roundsPlayed: entry.roundsPlayed,
          endedAt: timestampFromDate(entry.endedAt),
        })),
      };
    },
    getTournamentDetails: async ({ actor, tournamentId }) => {
      requireAdmin(actor);
      const details = await reads.details(tournamentId);
      if (!details) return {};
      return {
        details: {
          gameId: details.gameId,
          finished: details.status === 'finished',
          tournament: recordedTournament(details.tournament),
          ...(details.winner ? { winnerUsername: details.winner.username } : {}),
          totalPlayers: details.totalPlayers,
          rounds: details.rounds.map((round) => ({
            roundNumber: round.roundNumber,
            images: round.images,
            votes: round.votes.map((vote) => ({
              username: vote.username,
              imageId: vote.imageId,
              votedAt: timestampFromDate(vote.votedAt),
              isOfflinePlayer: vote.isOfflinePlayer,
            })),
            eliminatedPlayers: round.eliminatedPlayers,
          })),
          drawCommitment: details.draw.commitment,
          drawSeed: details.draw.seed,
          drawOrder: details.draw.order,
        },
      };
    },
  };
}
