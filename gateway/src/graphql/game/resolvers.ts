import { toLiveGameView, toPlayerStateView } from '../../realtime/views';
import type { RequestOrigin } from '../../session';
import type { GraphQLContext, Resolvers } from '../context';

/** A vote's arguments, as `castVote` takes them. */
export interface CastVoteArgs {
  tournamentId: string;
  roundNumber: number;
  imageId: string;
}

/**
 * What the game's mutations do, shared by their resolvers (below) and the graphql-ws fast path
 * (fast-mutations.ts), which calls them without graphql-js `execute`. A fair-play signal follows
 * a join that succeeded (a vote's travels on its game.votes event: Games).
 */
export const gameMutations = {
  joinTournament: async (
    { games, signals }: Pick<GraphQLContext, 'games' | 'signals'>,
    origin: RequestOrigin,
    { tournamentId }: { tournamentId: string },
  ) => {
    const player = await games.join(origin, tournamentId);
    signals.joined(origin, tournamentId);
    return toPlayerStateView(player);
  },
  castVote: ({ games }: Pick<GraphQLContext, 'games'>, origin: RequestOrigin, args: CastVoteArgs) =>
    games.vote(origin, args),
};

export const gameResolvers: Resolvers = {
  Query: {
    liveGame: async (
      _parent,
      { tournamentId }: { tournamentId: string },
      { games, origin, clock },
    ) => toLiveGameView(await games.liveGame(origin, tournamentId), clock.now()),
  },
  Mutation: {
    // Over HTTP and graphql-ws alike.
    joinTournament: (_parent, args: { tournamentId: string }, context) =>
      gameMutations.joinTournament(context, context.origin, args),
    castVote: (_parent, args: CastVoteArgs, context) =>
      gameMutations.castVote(context, context.origin, args),
  },
};
