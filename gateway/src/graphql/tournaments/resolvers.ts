import { offlineChoicesInput, tournamentInput } from '../../inputs';
import { parseBody } from '../../validation';
import type { Resolvers } from '../context';

export const tournamentsResolvers: Resolvers = {
  Query: {
    tournaments: (_parent, _args, { tournaments }) => tournaments.list(),
    tournament: (_parent, { id }: { id: string }, { tournaments }) => tournaments.get(id),
    offlineChoices: (_parent, args: { tournamentId: string }, { tournaments, origin }) =>
      tournaments.offlineChoices(origin, args.tournamentId),
    hasOfflineChoices: (_parent, args: { tournamentId: string }, { tournaments, origin }) =>
      tournaments.hasOfflineChoices(origin, args.tournamentId),
  },
  Mutation: {
    createTournament: (_parent, { input }: { input: unknown }, { tournaments, origin }) =>
      tournaments.create(origin, parseBody(tournamentInput, input)),
    updateTournament: (_parent, args: { id: string; input: unknown }, { tournaments, origin }) =>
      tournaments.update(origin, args.id, parseBody(tournamentInput, args.input)),
    deleteTournament: (_parent, { id }: { id: string }, { tournaments, origin }) =>
      tournaments.delete(origin, id).then(() => true),
    saveOfflineChoices: (
      _parent,
      args: { tournamentId: string; choices: unknown },
      { tournaments, origin },
    ) =>
      tournaments.saveOfflineChoices(
        origin,
        args.tournamentId,
        parseBody(offlineChoicesInput, { choices: args.choices }).choices,
      ),
  },
};
