/**
 * What the graphql-ws side of `/graphql` (server.ts) has that HTTP has not: the state kept per
 * socket, the mutations a socket may not send (they set a cookie) and a socket's own answer to
 * a signed-out caller.
 */
import type { Clock } from '@underdog/kit';
import type { IncomingMessage } from 'node:http';
import {
  GraphQLError,
  Kind,
  getOperationAST,
  type DocumentNode,
  type FormattedExecutionResult,
} from 'graphql';
import type { WebSocket } from 'ws';
import type { RequestOrigins } from '../request-origins';
import type { Connection } from '../realtime/core/channels';
import type { RealtimeLimits } from '../realtime/ports';
import { MessageRate, SocketSession } from '../realtime/socket-session';
import type { RequestOrigin } from '../session';
import type { SessionActors } from '../session-actors';
import { withoutSuggestions } from './limits';
import type { LiveSocket } from './live/live-operations';
import type { SocketExtra } from './web-socket-server';

/**
 * What the gateway keeps per graphql-ws socket (graphql-ws's `extra`): the socket, its place
 * in the real-time core, its session (resolved once) and its message budget. The upgrade
 * request itself is not kept past what the session needs.
 */
export class GraphQLSocket implements SocketExtra, LiveSocket {
  readonly session: SocketSession;
  private readonly rate: MessageRate;

  constructor(
    readonly socket: WebSocket,
    readonly connection: Connection,
    request: IncomingMessage,
    origins: RequestOrigins,
    limits: RealtimeLimits,
    actors: SessionActors | undefined,
    clock: Clock,
  ) {
    this.session = new SocketSession(request, origins, limits, actors, clock);
    this.rate = new MessageRate(limits, clock);
    connection.userOf = () => this.session.userId();
  }

  currentOrigin(): Promise<RequestOrigin> {
    return this.session.currentOrigin();
  }

  takeToken(): boolean {
    return this.rate.take();
  }
}

/** The mutations a live client may send over graphql-ws: none of them touches the cookie. */
const socketMutations = new Set(['joinTournament', 'castVote']);

/**
 * The other mutations go over HTTP: the ones that start or end a session must set a cookie,
 * which no WebSocket message can do. Joining and voting may go over the socket the game
 * already uses.
 */
export function refuseSessionMutations(
  document: DocumentNode,
  operationName: string | null | undefined,
): { errors: GraphQLError[] } | undefined {
  const operation = getOperationAST(document, operationName ?? undefined);
  if (operation?.operation !== 'mutation') return undefined;
  const fields = operation.selectionSet.selections;
  if (
    fields.every(
      (selection) => selection.kind === Kind.FIELD && socketMutations.has(selection.name.value),
    )
  ) {
    return undefined;
  }
  return {
    errors: [
      new GraphQLError('Mutations must be sent over HTTP', {
        extensions: { code: 'BAD_REQUEST' },
      }),
    ],
  };
}

/**
 * The code a socket answers a signed-out caller with, where HTTP answers `UNAUTHENTICATED`.
 * A socket speaks for the session its upgrade carried, and a page that signed in (or out) since
 * has a cookie the socket never saw: the client reconnects the socket, which then carries the
 * page's cookie, and sends the operation once more (docs/api-ws.md). Only if the new socket is
 * refused too is the caller really signed out.
 */
export const SOCKET_UNAUTHENTICATED = 'SOCKET_UNAUTHENTICATED';

/**
 * A query's or mutation's answer over the socket: `UNAUTHENTICATED` becomes
 * `SOCKET_UNAUTHENTICATED` (above), and in production no "Did you mean …" (execution can still
 * suggest names: a variable's enum value, an input field), as Apollo's
 * `hideSchemaDetailsFromClientErrors` does over HTTP. Undefined: the answer goes as it is.
 */
export function socketAnswer(
  result: { data?: unknown; errors?: readonly GraphQLError[] },
  suggestions: boolean,
): FormattedExecutionResult | undefined {
  if (!result.errors) return undefined;
  const signedOut = result.errors.some((error) => error.extensions.code === 'UNAUTHENTICATED');
  if (suggestions && !signedOut) return undefined;
  return {
    ...(result as FormattedExecutionResult),
    errors: result.errors.map((error) => {
      const formatted = error.toJSON();
      return {
        ...formatted,
        message: suggestions ? formatted.message : withoutSuggestions(formatted.message),
        ...(error.extensions.code === 'UNAUTHENTICATED' && {
          extensions: { ...formatted.extensions, code: SOCKET_UNAUTHENTICATED },
        }),
      };
    }),
  };
}
