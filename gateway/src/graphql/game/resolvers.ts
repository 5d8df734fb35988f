import { toLiveGameView, toPlayerStateView } from '../../realtime/views';
import type { Resolvers } from '../context';

export const gameResolvers: Resolvers = {
  Query: {
    liveGame: async (_parent, { tournamentId }: { tournamentId: string }, { games, origin }) =>
      toLiveGameView(await games.liveGame(origin, tournamentId), new Date()),
  },
  Mutation: {
    joinTournament: async (
      _parent,
      { tournamentId }: { tournamentId: string },
      { games, origin },
    ) => toPlayerStateView(await games.join(origin, tournamentId)),
    castVote: (
      _parent,
      args: { tournamentId: string; roundNumber: number; imageId: string },
      { games, origin },
    ) => games.vote(origin, args),
  },
};
