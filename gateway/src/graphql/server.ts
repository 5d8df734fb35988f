import { ApolloServer } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { expressMiddleware } from '@as-integrations/express5';
import { systemClock, type Clock, type Logger } from '@underdog/kit';
import type { RequestHandler } from 'express';
import { GraphQLError, getOperationAST, type DocumentNode, type ExecutionArgs } from 'graphql';
import { WebSocketServer } from 'ws';
import type { RequestOrigins } from '../request-origins';
import type { RealtimeCore } from '../realtime/core/realtime-core';
import type { LiveGamePort, RealtimeLimits } from '../realtime/ports';
import { expiringCache, type SessionActors } from '../session-actors';
import type { GraphQLContext } from './context';
import { FastMutations, fastPlanOf, type FastSocket } from './fast-mutations';
import { checkOperation, graphqlLimits, limitRules } from './limits';
import { LiveFeeds } from './live/feeds';
import type { LiveSubscriptionContext } from './live/live-operations';
import { createSchema } from './schema';
import { GraphQLSocket, refuseSessionMutations, socketAnswer } from './socket-operations';
import { serveGraphQLWs } from './web-socket-server';

export interface GraphQLOptions {
  logger: Logger;
  origins: RequestOrigins;
  /** The rest of the context, the same for every request. */
  services: Omit<GraphQLContext, 'origin' | 'logger' | 'clock'>;
  /** Schema introspection (off in production, on both transports). */
  introspection: boolean;
  /** "Did you mean …" in error messages (off in production, on both transports). */
  suggestions: boolean;
  /** The real-time core that feeds the live subscriptions and holds the sockets. */
  core: RealtimeCore;
  /** The live game the subscriptions' snapshots are read from. */
  games?: LiveGamePort | undefined;
  limits: RealtimeLimits;
  /** The gateway's session lookups: a logout through it shows on open sockets at once. */
  actors?: SessionActors;
  /**
   * The gateway's clock (snapshots' time left, sessions' ages, message budgets, the
   * connection_init deadline); default: the system clock.
   */
  clock?: Clock;
  /**
   * The app's `castVote` and `joinTournament` over graphql-ws answered without graphql-js
   * `execute` (fast-mutations.ts); default on. Off, every operation takes graphql-js (the tests
   * compare the two paths' answers).
   */
  fastMutations?: boolean | undefined;
}

/** What `onSubscribe` answers for one operation text, checked once (`checkedOperations`). */
type CheckedOperation =
  | {
      document: DocumentNode;
      operationName: string | null | undefined;
      /** A subscription is the live feeds' (no per-operation GraphQL context). */
      subscription: boolean;
      /** Answered by the fast path (fast-mutations.ts): its context is the socket itself. */
      fast: boolean;
      /** The text, one string for every socket that sends it (see `onSubscribe`). */
      query: string;
    }
  | { errors: GraphQLError[] };

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
  const clock = options.clock ?? systemClock;
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
      // No field has a cache hint. Apollo's default cache-control plugin would still wrap every
      // field's resolver of the schema at the first HTTP operation (so as to hear each field
      // resolve): a cost on every field the sockets' subscriptions execute, and a wrapped field
      // is not the default resolver the fast path answers for (fast-mutations.ts).
      ApolloServerPluginCacheControlDisabled(),
      options.introspection
        ? ApolloServerPluginLandingPageLocalDefault({ embed: true })
        : ApolloServerPluginLandingPageDisabled(),
    ],
  });
  await apollo.start();

  const feeds = new LiveFeeds({
    schema,
    logger,
    core: options.core,
    maxSubscriptionsPerSocket: options.limits.maxSubscriptionsPerSocket,
    games: options.games,
    suggestions: options.suggestions,
    clock,
  });
  const guard = { schema, introspection: options.introspection, suggestions: options.suggestions };
  const webSocket = new WebSocketServer({
    noServer: true,
    maxPayload: options.limits.maxPayloadBytes,
    perMessageDeflate: false,
  });
  // An operation's text is parsed and validated once, not on every vote (ExecutionArgs returned
  // by onSubscribe are executed as they are: graphql-ws neither parses nor validates them).
  const checkedOperations = expiringCache<string, CheckedOperation>(
    checkedOperationsMax,
    60 * 60_000,
  );
  // What a query's or mutation's resolvers get over the socket (the fast path's: the socket).
  const contextOf = async (socket: FastSocket): Promise<GraphQLContext> => ({
    ...options.services,
    logger,
    origin: await socket.currentOrigin(),
    clock,
  });
  const fast = new FastMutations({ ...options.services, logger }, contextOf);
  const fastPlan = (document: DocumentNode, operationName: string | null | undefined) => {
    const plan =
      options.fastMutations === false ? undefined : fastPlanOf(schema, document, operationName);
    if (plan) fast.plan(document, plan);
    return plan !== undefined;
  };
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
              subscription:
                getOperationAST(parsed.document, operationName ?? undefined)?.operation ===
                'subscription',
              fast: fastPlan(parsed.document, operationName),
              query,
            });
      checkedOperations.set(key, checked);
    }
    return checked;
  };
  const subscriptions = serveGraphQLWs<Record<string, unknown> | undefined, GraphQLSocket>(
    {
      schema,
      // The lookup starts at connection_init; the ack does not wait for it (the first
      // operation does, through the same promise): one auth round trip less per connect.
      onConnect: (ctx) => {
        // The web app names its device here, not in the URL (which ingress logs keep).
        ctx.extra.session.adoptDeviceId(ctx.connectionParams);
        void ctx.extra.session.resolve();
        // Nothing else reads them, and graphql-ws would keep them for the socket's life.
        (ctx as { connectionParams?: unknown }).connectionParams = undefined;
        return true;
      },
      // Queries and mutations over the socket (castVote, joinTournament); subscriptions and the
      // fast path's operations get theirs in onSubscribe.
      context: ({ extra }) => contextOf(extra),
      // The fast path's documents without graphql-js `execute`; the others with it.
      execute: (args) => fast.execute(args),
      onSubscribe: ({ extra }, id, payload): ExecutionArgs | GraphQLError[] => {
        const checked = checkOnce(payload.query, payload.operationName);
        if ('errors' in checked) return checked.errors;
        // graphql-ws keeps the subscribe message as long as the subscription runs: its query
        // becomes the one string every socket shares, not a copy per socket.
        (payload as { query: string }).query = checked.query;
        return {
          schema,
          document: checked.document,
          operationName: checked.operationName,
          variableValues: payload.variables,
          // graphql-ws adds a root value when there is none: a property less to add later.
          rootValue: undefined,
          ...(checked.subscription
            ? {
                contextValue: {
                  subscriptionId: id,
                  socket: extra,
                } satisfies LiveSubscriptionContext,
              }
            : checked.fast
              ? // No context per vote: the fast path asks the socket whom it speaks for.
                { contextValue: extra satisfies FastSocket }
              : {}),
        };
      },
      // Live subscriptions' `next` messages are written by the real-time core, not here.
      onNext: (_ctx, _id, _payload, _args, result) => socketAnswer(result, options.suggestions),
      // Subscriptions are fed by the real-time core: one execution per event and operation.
      subscribe: (args) => feeds.subscribe(args),
    },
    webSocket,
    logger,
    {
      extra: (socket, request) =>
        new GraphQLSocket(
          socket,
          options.core.open(socket, 'graphql-ws'),
          request,
          options.origins,
          options.limits,
          options.actors,
          clock,
        ),
      admit: (extra) => extra.takeToken(),
      clock,
      connectionInitWaitMs: options.limits.firstMessageTimeoutMs,
    },
  );

  return {
    http: expressMiddleware(apollo, {
      context: async ({ req, res }) => ({
        ...options.services,
        logger,
        origin: options.origins.fromHttp(req, res),
        clock,
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
