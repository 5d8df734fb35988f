import type { TournamentHistoryItemView } from '../../records';
import type { Resolvers } from '../context';

export const integrityResolvers: Resolvers = {
  Query: {
    tournamentIntegrity: (_parent, args: { tournamentId: string }, { integrity, origin }) =>
      integrity.report(origin, args.tournamentId),
  },
  TournamentHistoryItem: {
    // One report per history row (final reports are kept by the tournament service); a row
    // whose report cannot be read (a deleted tournament) shows no flag rather than failing the list.
    winnerFlagged: async (parent, _args, { integrity, origin, logger }) => {
      const item = parent as TournamentHistoryItemView;
      if (!item.winner) return false;
      try {
        return await integrity.isFlagged(origin, item.tournament.id, item.winner.username);
      } catch (error) {
        logger.debug({ err: error, tournamentId: item.tournament.id }, 'no integrity report');
        return null;
      }
    },
  },
};
