import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { expressMiddleware } from '@as-integrations/express5';
import type { Logger } from '@underdog/kit';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import {
  GraphQLError,
  Kind,
  getOperationAST,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { WebSocketServer } from 'ws';
import type { RequestOrigins } from '../request-origins';
import type { RealtimeMetrics } from '../realtime/metrics';
import type { RealtimeLimits } from '../realtime/ports';
import { MessageRate, SocketSession } from '../realtime/socket-session';
import { expiringCache, type SessionActors } from '../session-actors';
import type { GraphQLContext } from './context';
import { checkOperation, graphqlLimits, limitRules, withoutSuggestions } from './limits';
import type { LiveFeeds } from './live/feeds';
import { preparedPayload, sendPreparedPayloads } from './live/prepared-next';
import { createSchema } from './schema';
import { serveGraphQLWs } from './web-socket-server';

export interface GraphQLOptions {
  logger: Logger;
  origins: RequestOrigins;
  /** The rest of the context, the same for every request. */
  services: Omit<GraphQLContext, 'origin' | 'logger'>;
  /** Schema introspection (off in production, on both transports). */
  introspection: boolean;
  /** "Did you mean …" in error messages (off in production, on both transports). */
  suggestions: boolean;
  /** The live subscriptions, fed by the fan-out; built from this endpoint's schema. */
  createFeeds: (schema: GraphQLSchema) => LiveFeeds;
  metrics: RealtimeMetrics;
  limits: RealtimeLimits;
  /** The gateway's session lookups: a logout through it shows on open sockets at once. */
  actors?: SessionActors;
}

/** What `onSubscribe` answers for one operation text, checked once (`checkedOperations`). */
type CheckedOperation =
  { document: DocumentNode; operationName: string | null | undefined } | { errors: GraphQLError[] };

/** Distinct operation texts kept checked; a client sends a handful, so this is generous. */
const checkedOperationsMax = 500;

export interface GraphQLEndpoint {
  /** Express middleware for `/graphql` over HTTP (after express.json()). */
  http: RequestHandler;
  /** The graphql-ws server for `/graphql` WebSocket upgrades. */
  webSocket: WebSocketServer;
  /** Closes every graphql-ws connection (1001, going away) and refuses new ones. */
  closeWebSockets(): Promise<void>;
  /** The graphql-ws subscriptions' fan-out (a listener of the realtime hub). */
  feeds: LiveFeeds;
  /** Stops Apollo; after the HTTP server has drained its requests. */
  stop(): Promise<void>;
}

/**
 * Apollo Server over HTTP and graphql-ws over WebSocket, both at `/graphql` with one schema.
 * Apollo's CSRF prevention stays on: a GET or a "simple" POST without a JSON content type or
 * an `apollo-require-preflight` / `x-apollo-operation-name` header is refused with 400.
 *
 * Both transports check an operation the same way before executing it (`limits.ts`): token
 * budget while parsing, then aliases, depth and cost, and, when they are off, no introspection
 * and no field suggestions.
 */
export async function createGraphQLEndpoint(options: GraphQLOptions): Promise<GraphQLEndpoint> {
  const logger = options.logger.child({ component: 'graphql' });
  const schema = createSchema();
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    csrfPrevention: true,
    introspection: options.introspection,
    hideSchemaDetailsFromClientErrors: !options.suggestions,
    parseOptions: { maxTokens: graphqlLimits.maxTokens },
    validationRules: limitRules(),
    includeStacktraceInErrorResponses: false,
    // The process's lifecycle owns SIGINT/SIGTERM (runUntilSignal) and stops Apollo in order;
    // Apollo's own handlers would race it and re-raise the signal.
    stopOnTerminationSignals: false,
    logger,
    plugins: [
      options.introspection
        ? ApolloServerPluginLandingPageLocalDefault({ embed: true })
        : ApolloServerPluginLandingPageDisabled(),
    ],
  });
  await apollo.start();

  const feeds = options.createFeeds(schema);
  const guard = { schema, introspection: options.introspection, suggestions: options.suggestions };
  const webSocket = new WebSocketServer({
    noServer: true,
    maxPayload: options.limits.maxPayloadBytes,
    perMessageDeflate: false,
  });
  webSocket.on('connection', (socket) => {
    sendPreparedPayloads(socket);
    options.metrics.connections.inc({ protocol: 'graphql-ws' });
    socket.on('close', () => options.metrics.connections.dec({ protocol: 'graphql-ws' }));
    // The same budget as a /ws socket: a flood is closed with 1008 (graphql-ws has none).
    const rate = new MessageRate(options.limits);
    socket.on('message', () => {
      if (!rate.take()) socket.close(1008, 'Too many messages');
    });
  });
  // The session of each socket, resolved at connection_init and reused by its operations.
  const sessions = new WeakMap<object, SocketSession>();
  const sessionOf = (extra: { socket: object; request: IncomingMessage }) => {
    let session = sessions.get(extra.socket);
    if (!session) {
      session = new SocketSession(extra.request, options.origins, options.limits, options.actors);
      sessions.set(extra.socket, session);
    }
    return session;
  };
  // An operation's text is parsed and validated once, not on every vote (ExecutionArgs returned
  // by onSubscribe are executed as they are: graphql-ws neither parses nor validates them).
  const checkedOperations = expiringCache<string, CheckedOperation>(
    checkedOperationsMax,
    60 * 60_000,
  );
  const checkOnce = (query: string, operationName: string | null | undefined) => {
    const key = `${operationName ?? ''}\n${query}`;
    let checked = checkedOperations.get(key);
    if (!checked) {
      const parsed = checkOperation(guard, query);
      checked =
        'errors' in parsed
          ? parsed
          : (refuseSessionMutations(parsed.document, operationName) ?? {
              document: parsed.document,
              operationName,
            });
      checkedOperations.set(key, checked);
    }
    return checked;
  };
  const subscriptions = serveGraphQLWs(
    {
      schema,
      // The lookup starts at connection_init; the ack does not wait for it (the first
      // operation does, through the same promise): one auth round trip less per connect.
      onConnect: ({ extra }) => {
        void sessionOf(extra).resolve();
        return true;
      },
      context: async ({ extra }): Promise<GraphQLContext> => ({
        ...options.services,
        logger,
        origin: await sessionOf(extra).currentOrigin(),
        webSocket: extra.socket,
      }),
      onSubscribe: (_ctx, _id, payload): ExecutionArgs | GraphQLError[] => {
        const checked = checkOnce(payload.query, payload.operationName);
        if ('errors' in checked) return checked.errors;
        return {
          schema,
          document: checked.document,
          operationName: checked.operationName,
          variableValues: payload.variables,
        };
      },
      onNext: (_ctx, _id, _payload, _args, result) => {
        // A broadcast's payload is serialised once for all its subscribers (prepared-next.ts).
        const json = feeds.serialised(result as ExecutionResult);
        if (json !== undefined) return preparedPayload(json);
        return options.suggestions ? undefined : hideSuggestions(result);
      },
      // Subscriptions are fed by the fan-out: one execution per event and operation.
      subscribe: (args) => feeds.subscribe(args),
    },
    webSocket,
    logger,
  );

  return {
    http: expressMiddleware(apollo, {
      context: async ({ req, res }) => ({
        ...options.services,
        logger,
        origin: options.origins.fromHttp(req, res),
      }),
    }),
    webSocket,
    feeds,
    closeWebSockets: async () => {
      await subscriptions.dispose();
    },
    stop: () => apollo.stop(),
  };
}

/** The mutations a live client may send over graphql-ws: none of them touches the cookie. */
const socketMutations = new Set(['joinTournament', 'castVote']);

/**
 * The other mutations go over HTTP: the ones that start or end a session must set a cookie,
 * which no WebSocket message can do. Joining and voting may go over the socket the game
 * already uses.
 */
function refuseSessionMutations(
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
 * Execution can still suggest names (a variable's enum value, an input field); in production
 * the WebSocket answers without them, as Apollo's `hideSchemaDetailsFromClientErrors` does.
 */
function hideSuggestions(result: {
  data?: unknown;
  errors?: readonly GraphQLError[];
}): FormattedExecutionResult | undefined {
  if (!result.errors) return undefined;
  return {
    ...(result as FormattedExecutionResult),
    errors: result.errors.map((error) => ({
      ...error.toJSON(),
      message: withoutSuggestions(error.message),
    })),
  };
}
