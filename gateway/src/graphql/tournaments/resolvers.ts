import { offlineChoicesInput, tournamentInput } from '../../inputs';
import { parseBody } from '../../validation';
import type { Resolvers } from '../context';

export const tournamentsResolvers: Resolvers = {
  Query: {
    tournaments: (_parent, _args, { tournaments }) => tournaments.list(),
    tournament: (_parent, { id }: { id: string }, { tournaments }) => tournaments.get(id),
    offlineChoices: (_parent, args: { tournamentId: string }, { tournaments, caller }) =>
      tournaments.offlineChoices(caller, args.tournamentId),
    hasOfflineChoices: (_parent, args: { tournamentId: string }, { tournaments, caller }) =>
      tournaments.hasOfflineChoices(caller, args.tournamentId),
  },
  Mutation: {
    createTournament: (_parent, { input }: { input: unknown }, { tournaments, caller }) =>
      tournaments.create(caller, parseBody(tournamentInput, input)),
    updateTournament: (_parent, args: { id: string; input: unknown }, { tournaments, caller }) =>
      tournaments.update(caller, args.id, parseBody(tournamentInput, args.input)),
    deleteTournament: (_parent, { id }: { id: string }, { tournaments, caller }) =>
      tournaments.delete(caller, id).then(() => true),
    saveOfflineChoices: (
      _parent,
      args: { tournamentId: string; choices: unknown },
      { tournaments, caller },
    ) =>
      tournaments.saveOfflineChoices(
        caller,
        args.tournamentId,
        parseBody(offlineChoicesInput, { choices: args.choices }).choices,
      ),
  },
};
