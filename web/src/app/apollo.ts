import { ApolloClient, HttpLink, InMemoryCache, split } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { Kind, type DocumentNode } from 'graphql';
import { createClient } from 'graphql-ws';
import possibleTypes from '../gql/possibleTypes';
import { deviceId } from './deviceId';
import { setSocketStatus } from './socketStatus';

/** Spec §9: a closed socket reconnects after 3 s (and graphql-ws resubscribes). */
export const SOCKET_RECONNECT_MS = 3_000;

/**
 * A browser cannot set headers on a WebSocket handshake, so the device id goes in the URL
 * (`?deviceId=`): the socket's votes and joins carry it as X-Device-ID does over HTTP.
 */
function webSocketUrl(): string {
  const protocol = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${protocol}//${window.location.host}/graphql?deviceId=${encodeURIComponent(deviceId())}`;
}

/**
 * The mutations sent over the open graphql-ws socket: the live game's own actions, which set no
 * cookie. The socket's session was resolved once when it connected, so a vote costs the
 * gateway no session lookup and no HTTP request (issue 25); every other mutation goes over
 * HTTP, where the session cookie can be set.
 */
const socketMutations = new Set(['castVote', 'joinTournament']);

function goesOverSocket(query: DocumentNode): boolean {
  const definition = getMainDefinition(query);
  if (definition.kind !== 'OperationDefinition') return false;
  if (definition.operation === 'subscription') return true;
  return (
    definition.operation === 'mutation' &&
    definition.selectionSet.selections.every(
      (selection) => selection.kind === Kind.FIELD && socketMutations.has(selection.name.value),
    )
  );
}

/**
 * One Apollo client: queries and mutations over HTTP (`/graphql`, cookies, X-Device-ID),
 * subscriptions, `castVote` and `joinTournament` over graphql-ws on the same path. Cache policy of spec §9: data is never
 * considered stale (cache-first, nothing refetches on focus or polls unless a screen asks),
 * and nothing retries: there is no retry link.
 */
export function createApolloClient(): ApolloClient<unknown> {
  const http = new HttpLink({
    uri: '/graphql',
    credentials: 'same-origin',
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('X-Device-ID', deviceId());
      return fetch(input, { ...init, headers });
    },
  });
  let everConnected = false;
  const socket = createClient({
    url: webSocketUrl,
    connectionParams: () => ({ 'X-Device-ID': deviceId(), deviceId: deviceId() }),
    lazy: false,
    retryAttempts: Number.POSITIVE_INFINITY,
    shouldRetry: () => true,
    retryWait: () => new Promise((resolve) => setTimeout(resolve, SOCKET_RECONNECT_MS)),
    on: {
      connected: () => {
        everConnected = true;
        setSocketStatus('connected');
      },
      closed: () => setSocketStatus(everConnected ? 'reconnecting' : 'connecting'),
    },
  });
  const link = split(({ query }) => goesOverSocket(query), new GraphQLWsLink(socket), http);
  return new ApolloClient({
    link,
    cache: new InMemoryCache({ possibleTypes: possibleTypes.possibleTypes }),
    defaultOptions: {
      watchQuery: { fetchPolicy: 'cache-first', refetchWritePolicy: 'overwrite' },
      query: { fetchPolicy: 'cache-first' },
    },
  });
}
