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
    // Over HTTP and graphql-ws alike; a fair-play signal follows a join or vote that succeeded.
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
      { games, origin, signals },
    ) => {
      const vote = await games.vote(origin, args);
      signals.voted(origin, vote);
      return vote;
    },
  },
};
