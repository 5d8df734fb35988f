import type { Resolvers } from '../context';

export const recordsResolvers: Resolvers = {
  Query: {
    tournamentStatistics: (_parent, args: { tournamentId: string }, { records, origin }) =>
      records.statistics(origin, args.tournamentId),
    tournamentHistory: (_parent, _args, { records, origin }) => records.history(origin),
    tournamentDetails: (_parent, args: { tournamentId: string }, { records, origin }) =>
      records.details(origin, args.tournamentId),
  },
};
