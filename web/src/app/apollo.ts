import { ApolloClient, HttpLink, InMemoryCache, from, split } from '@apollo/client';
import { onError } from '@apollo/client/link/error';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { Kind, type DocumentNode } from 'graphql';
import { createClient } from 'graphql-ws';
import { fullRetryDelayMs, reconnectDelayMs } from '@underdog/rules';
import possibleTypes from '../gql/possibleTypes';
import { deviceId } from './deviceId';
import { followSession, SOCKET_UNAUTHENTICATED } from './socketSession';
import { setSocketStatus, setWaitingRoom } from './socketStatus';

// The reconnect waits and the waiting room's 1013 contract are the shipped client's socket
// policy, in @underdog/rules (the load driver and the fault suite wait the same).
export {
  FULL_RETRY_JITTER,
  RECONNECT_JITTER_MS,
  SERVER_FULL_CLOSE_CODE,
  SOCKET_RECONNECT_MS,
  fullRetryDelayMs,
  reconnectDelayMs,
} from '@underdog/rules';

/**
 * The socket's URL carries nothing of the player: a browser cannot set headers on a WebSocket
 * handshake, so the device id goes in graphql-ws's `connection_init` payload instead (below),
 * never in the URL, which proxies and ingresses log. The socket's votes and joins carry it as
 * X-Device-ID does over HTTP.
 */
export function webSocketUrl(): string {
  const protocol = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${protocol}//${window.location.host}/graphql`;
}

/** graphql-ws `connection_init` payload: the device id (docs/api-ws.md). */
export function socketConnectionParams(): { deviceId: string } {
  return { deviceId: deviceId() };
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

/** graphql-ws's close code for a socket the client itself terminated (`Client.terminate`). */
const TERMINATED_CLOSE_CODE = 4499;

/**
 * One Apollo client: queries and mutations over HTTP (`/graphql`, cookies, X-Device-ID),
 * subscriptions, `castVote` and `joinTournament` over graphql-ws on the same path. Cache policy of spec §9: data is never
 * considered stale (cache-first, nothing refetches on focus or polls unless a screen asks),
 * and nothing retries: there is no retry link.
 *
 * The socket follows the page's session (issue 34): the gateway reads a socket's session from
 * the cookie of its upgrade, so when the signed-in user changes (register, verify, log in, log
 * out) the socket is opened again at once, before its next operation, and graphql-ws sends its
 * subscriptions again. An operation the gateway still answers `SOCKET_UNAUTHENTICATED` (the
 * socket opened before a session the page has not seen change, e.g. rotated on the server) is
 * sent once more on a socket opened anew.
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
  // The wait before the next attempt, set by the last close: the waiting room's N s with
  // jitter after a 1013, else spec §9's 3 s (± 1 s).
  let nextWaitMs = reconnectDelayMs();
  // Set while the socket is closed on purpose to open it again with the page's cookie.
  let reopening = false;
  const socket = createClient({
    url: webSocketUrl,
    connectionParams: socketConnectionParams,
    lazy: false,
    retryAttempts: Number.POSITIVE_INFINITY,
    shouldRetry: () => true,
    retryWait: () => new Promise((resolve) => setTimeout(resolve, nextWaitMs)),
    on: {
      connected: () => {
        reopening = false;
        everConnected = true;
        setSocketStatus('connected');
      },
      closed: (event) => {
        if (reopening && (event as { code?: unknown } | null)?.code === TERMINATED_CLOSE_CODE) {
          // Not a drop: opened again at once, and no "reconnecting" shown meanwhile.
          reopening = false;
          nextWaitMs = 0;
          return;
        }
        const fullWaitMs = fullRetryDelayMs(event);
        if (fullWaitMs === undefined) {
          nextWaitMs = reconnectDelayMs();
          setSocketStatus(everConnected ? 'reconnecting' : 'connecting');
        } else {
          nextWaitMs = fullWaitMs;
          setWaitingRoom(Date.now() + fullWaitMs);
        }
      },
    },
  });
  /** A new connection_init with the cookie the page has now; subscriptions are sent again. */
  const reopenSocket = () => {
    reopening = true;
    socket.terminate();
  };
  // Sent once more on a socket opened anew; onError passes the second answer on as it is.
  const resendOnNewSocket = onError(({ graphQLErrors, forward, operation }) => {
    if (!graphQLErrors?.some((error) => error.extensions?.code === SOCKET_UNAUTHENTICATED)) return;
    reopenSocket();
    return forward(operation);
  });
  const link = split(
    ({ query }) => goesOverSocket(query),
    from([resendOnNewSocket, new GraphQLWsLink(socket)]),
    http,
  );
  const client = new ApolloClient({
    link,
    cache: new InMemoryCache({ possibleTypes: possibleTypes.possibleTypes }),
    defaultOptions: {
      watchQuery: { fetchPolicy: 'cache-first', refetchWritePolicy: 'overwrite' },
      query: { fetchPolicy: 'cache-first' },
    },
  });
  followSession(client, reopenSocket);
  return client;
}
