import type { TournamentHistoryItemView } from '../../records';
import type { Resolvers } from '../context';

export const integrityResolvers: Resolvers = {
  Query: {
    tournamentIntegrity: (_parent, args: { tournamentId: string }, { integrity, origin }) =>
      integrity.report(origin, args.tournamentId),
  },
  TournamentHistoryItem: {
    winnerFlagged: (parent, _args, { integrity, origin }) => {
      const item = parent as TournamentHistoryItemView;
      if (!item.winner) return false;
      return integrity.isFlagged(origin, item.tournament.id, item.winner.username);
    },
  },
};
