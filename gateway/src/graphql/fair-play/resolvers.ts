import type { TournamentHistoryItemView } from '../../records';
import type { Resolvers } from '../context';

export const fairPlayResolvers: Resolvers = {
  Query: {
    tournamentFairPlay: (_parent, args: { tournamentId: string }, { fairPlay, origin }) =>
      fairPlay.report(origin, args.tournamentId),
  },
  TournamentHistoryItem: {
    // One report per history row (final reports are kept by the tournament service); a row
    // whose report cannot be read (a deleted tournament) shows no flag rather than failing the list.
    winnerFlagged: async (parent, _args, { fairPlay, origin, logger }) => {
      const item = parent as TournamentHistoryItemView;
      if (!item.winner) return false;
      try {
        return await fairPlay.isFlagged(origin, item.tournament.id, item.winner.username);
      } catch (error) {
        logger.debug({ err: error, tournamentId: item.tournament.id }, 'no fair-play report');
        return null;
      }
    },
  },
};
