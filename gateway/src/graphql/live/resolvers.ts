import { GraphQLError } from 'graphql';
import type { GameFeedItem, TournamentChange } from '../../realtime/views';
import type { TournamentView } from '../../tournaments';

/**
 * What a live subscription's root field resolves from: the payload computed once per event by
 * the fan-out (`LiveFeeds`), never per subscriber.
 */
export interface LiveRoot {
  gameEvents?: GameFeedItem;
  tournamentsChanged?: TournamentChange & { tournaments: TournamentView[] };
}

const servedByFeeds = () => {
  throw new GraphQLError('Subscriptions are served over graphql-ws', {
    extensions: { code: 'BAD_REQUEST' },
  });
};

/**
 * Plain functions, not `withAppErrors`-wrapped: they only read the prepared payload, and staying
 * synchronous keeps one execution per event cheap.
 */
export const liveResolvers = {
  GameEvent: {
    __resolveType: (item: GameFeedItem) => item.type,
  },
  Subscription: {
    tournamentsChanged: {
      subscribe: servedByFeeds,
      resolve: (root: LiveRoot) => root.tournamentsChanged,
    },
    gameEvents: {
      subscribe: servedByFeeds,
      resolve: (root: LiveRoot) => root.gameEvents,
    },
  },
};
