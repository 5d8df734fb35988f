import type { Resolvers } from '../context';

export const recordsResolvers: Resolvers = {
  Query: {
    tournamentStatistics: (_parent, args: { tournamentId: string }, { records, caller }) =>
      records.statistics(caller, args.tournamentId),
    tournamentHistory: (_parent, _args, { records, caller }) => records.history(caller),
    tournamentDetails: (_parent, args: { tournamentId: string }, { records, caller }) =>
      records.details(caller, args.tournamentId),
  },
};
