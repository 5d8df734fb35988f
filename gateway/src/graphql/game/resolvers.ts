import { toLiveGameView, toPlayerStateView } from '../../realtime/views';
import type { Resolvers } from '../context';

export const gameResolvers: Resolvers = {
  Query: {
    liveGame: async (_parent, { tournamentId }: { tournamentId: string }, { games, caller }) =>
      toLiveGameView(await games.liveGame(caller, tournamentId), new Date()),
  },
  Mutation: {
    joinTournament: async (
      _parent,
      { tournamentId }: { tournamentId: string },
      { games, caller },
    ) => toPlayerStateView(await games.join(caller, tournamentId)),
    castVote: (
      _parent,
      args: { tournamentId: string; roundNumber: number; imageId: string },
      { games, caller },
    ) => games.vote(caller, args),
  },
};
