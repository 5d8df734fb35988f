import { toLiveGameView, toPlayerStateView } from '../../realtime/views';
import type { Resolvers } from '../context';

export const gameResolvers: Resolvers = {
  Query: {
    liveGame: async (
      _parent,
      { tournamentId }: { tournamentId: string },
      { games, origin, clock },
    ) => toLiveGameView(await games.liveGame(origin, tournamentId), clock.now()),
  },
  Mutation: {
    // Over HTTP and graphql-ws alike; a fair-play signal follows a join that succeeded (a vote's
    // travels on its game.votes event: Games).
    joinTournament: async (
      _parent,
      { tournamentId }: { tournamentId: string },
      { games, origin, signals },
    ) => {
      const player = await games.join(origin, tournamentId);
      signals.joined(origin, tournamentId);
      return toPlayerStateView(player);
    },
    castVote: async (
      _parent,
      args: { tournamentId: string; roundNumber: number; imageId: string },
      { games, origin },
    ) => games.vote(origin, args),
  },
};
