// Over 300 lines: its channel, subscription and LiveFeeds refer to one another (apart, a circle).
import { systemClock, type Clock, type Logger } from '@underdog/kit';
import {
  GraphQLError,
  execute,
  getOperationAST,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { getArgumentValues, getVariableValues } from 'graphql/execution/values';
import { graphqlWsEncoder } from '../../realtime/core/encoders';
import type { Encoded } from '../../realtime/core/frames';
import {
  Subscriber,
  type ChangeMessages,
  type Channel,
  type Connection,
} from '../../realtime/core/channels';
import type { RealtimeCore } from '../../realtime/core/realtime-core';
import type { LiveGamePort } from '../../realtime/ports';
import {
  toLiveGameView,
  type GameEventView,
  type GameFeedItem,
  type TournamentChange,
} from '../../realtime/views';
import type { TournamentView } from '../../tournaments';
import type { GraphQLContext } from '../context';
import { toGraphQLError } from '../errors';
import { withoutSuggestions } from '../limits';
import {
  isLiveSubscriptionContext,
  printedOnce,
  rootField,
  type LiveSocket,
} from './live-operations';
import type { LiveRoot } from './resolvers';

type LiveField = 'gameEvents' | 'tournamentsChanged';

const done: IteratorResult<never> = { value: undefined, done: true };

/**
 * Subscribers of one field with the same document, operation and variables: each event is
 * executed once for all of them, and its result serialised once.
 */
class OperationChannel implements Channel {
  readonly encoder = graphqlWsEncoder;
  readonly subscribers = new Set<Subscriber>();

  constructor(
    readonly key: string,
    readonly field: LiveField,
    readonly tournamentId: string | null,
    readonly document: DocumentNode,
    readonly operationName: string | null | undefined,
    readonly variableValues: Record<string, unknown>,
    readonly feeds: LiveFeeds,
    /** `tournamentsChanged(tournamentId:)`: only this tournament's changes reach it. */
    readonly onlyTournamentId: string | null = null,
  ) {}

  gameEvent(view: GameEventView): Encoded | Promise<Encoded> {
    return this.feeds.executeOnce(this, { gameEvents: view });
  }

  async tournamentChange(
    change: TournamentChange,
    list: TournamentView[] | null,
  ): Promise<ChangeMessages> {
    // The change is announced with the list; without it there is nothing true to say.
    if (!list) return {};
    if (this.onlyTournamentId !== null && change.tournamentId !== this.onlyTournamentId) {
      return {};
    }
    return {
      withList: await this.feeds.executeOnce(this, {
        tournamentsChanged: { ...change, tournaments: list },
      }),
    };
  }
}

/**
 * One subscription: the core writes its `next` messages to the socket itself, so for
 * graphql-ws this iterator only says when the subscription is over (dropped, or the socket
 * gone); its `return` (the client's `complete`, the socket's close) lets it go.
 */
class LiveSubscription extends Subscriber implements AsyncIterableIterator<ExecutionResult> {
  private finish: ((result: IteratorResult<never>) => void) | undefined;

  constructor(
    connection: Connection,
    readonly operation: OperationChannel,
    id: string,
  ) {
    super(connection, operation, id);
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    if (!this.active) return Promise.resolve(done);
    return new Promise((resolve) => (this.finish = resolve));
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    this.operation.feeds.core.leave(this);
    return Promise.resolve(done);
  }

  [Symbol.asyncIterator]() {
    return this;
  }

  override ended(): void {
    const finish = this.finish;
    this.finish = undefined;
    finish?.(done);
  }
}

export interface LiveFeedsOptions {
  schema: GraphQLSchema;
  logger: Logger;
  /** The real-time core that holds the subscribers and writes their messages. */
  core: RealtimeCore;
  games?: LiveGamePort | undefined;
  /** The server clock the snapshot's time left is measured by; default: the system clock. */
  clock?: Clock;
  /** "Did you mean …" in error messages (off in production, as on HTTP). */
  suggestions?: boolean;
  /**
   * Live subscriptions one socket may hold at once (WEBSOCKET_MAX_SUBSCRIPTIONS_PER_SOCKET);
   * the next is refused `TOO_MANY_SUBSCRIPTIONS`. Default: no cap.
   */
  maxSubscriptionsPerSocket?: number;
}

/** The error code of a subscription refused because its socket holds the most it may. */
export const TOO_MANY_SUBSCRIPTIONS = 'TOO_MANY_SUBSCRIPTIONS';

/**
 * The graphql-ws subscriptions `tournamentsChanged` and `gameEvents`, fed by the real-time core
 * (docs/adr: "one execution per event", "one real-time core, two encoders"): subscribers with
 * the same operation form a channel; each event is executed and serialised once per channel,
 * and each subscriber's `next` message is that JSON in its own envelope (`graphqlWsEncoder`),
 * so the work per event grows with the number of distinct operations, not of subscribers.
 *
 * A socket holds at most `maxSubscriptionsPerSocket` live subscriptions at once: each distinct
 * one is a channel executed on every event, and a `gameEvents` one costs a `GetLiveGame` call
 * when it starts. The next is refused with an error naming the limit (the socket stays open);
 * once one completes, another may start.
 */
export class LiveFeeds {
  readonly core: RealtimeCore;
  private readonly clock: Clock;

  constructor(private readonly options: LiveFeedsOptions) {
    this.core = options.core;
    this.clock = options.clock ?? systemClock;
  }

  /** graphql-ws's `subscribe`: only called for subscription operations. */
  subscribe = async (
    args: ExecutionArgs,
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> => {
    const context = args.contextValue;
    if (!isLiveSubscriptionContext(context)) {
      return { errors: [new GraphQLError('Subscriptions are served over graphql-ws')] };
    }
    const operation = getOperationAST(args.document, args.operationName);
    const fieldNode = operation && rootField(args.document, operation.selectionSet);
    const field = fieldNode?.name.value;
    if (!operation || !fieldNode || (field !== 'gameEvents' && field !== 'tournamentsChanged')) {
      return { errors: [new GraphQLError('Unknown subscription')] };
    }
    const variables = getVariableValues(
      this.options.schema,
      operation.variableDefinitions ?? [],
      args.variableValues ?? {},
    );
    if (variables.errors) return { errors: variables.errors };
    const fieldDef = this.options.schema.getSubscriptionType()?.getFields()[field];
    if (!fieldDef) return { errors: [new GraphQLError('Unknown subscription')] };
    let tournamentId: string | null = null;
    let onlyTournamentId: string | null = null;
    try {
      const argumentValues = getArgumentValues(fieldDef, fieldNode, variables.coerced);
      if (field === 'gameEvents') tournamentId = String(argumentValues.tournamentId).trim();
      else if (argumentValues.tournamentId != null) {
        onlyTournamentId = String(argumentValues.tournamentId).trim();
      }
    } catch (error) {
      return { errors: [error instanceof GraphQLError ? error : new GraphQLError('Bad input')] };
    }
    const invalid = (id: string | null) => id !== null && (id === '' || id.length > 200);
    if (invalid(tournamentId) || invalid(onlyTournamentId)) {
      return {
        errors: [
          new GraphQLError('tournamentId is invalid', { extensions: { code: 'BAD_REQUEST' } }),
        ],
      };
    }

    const most = this.options.maxSubscriptionsPerSocket ?? Number.POSITIVE_INFINITY;
    // Every subscriber of a graphql-ws socket's connection is one of its live subscriptions.
    if (context.socket.connection.subscribers.length >= most) {
      return {
        errors: [
          new GraphQLError(
            `Too many subscriptions on this socket: at most ${most} at once; complete one first`,
            { extensions: { code: TOO_MANY_SUBSCRIPTIONS } },
          ),
        ],
      };
    }
    const key = JSON.stringify([
      field,
      tournamentId ?? onlyTournamentId,
      printedOnce(args.document),
      args.operationName ?? null,
      variables.coerced,
    ]);
    const channel = this.core.channel(
      key,
      () =>
        new OperationChannel(
          key,
          field,
          tournamentId,
          args.document,
          args.operationName,
          variables.coerced,
          this,
          onlyTournamentId,
        ),
    );
    const subscription = new LiveSubscription(
      context.socket.connection,
      channel,
      context.subscriptionId,
    );
    this.core.join(subscription);
    if (tournamentId !== null && this.options.games) {
      this.core.hold(subscription);
      void this.snapshot(subscription, tournamentId, context.socket);
    }
    return subscription;
  };

  /** How many distinct operations are being fed (tests and diagnostics). */
  groupCount(): number {
    return this.core.channelCount(graphqlWsEncoder);
  }

  /** One event's result for every subscriber of an operation: executed and serialised once. */
  executeOnce(channel: OperationChannel, root: LiveRoot): Encoded | Promise<Encoded> {
    const result = execute({
      schema: this.options.schema,
      document: channel.document,
      operationName: channel.operationName,
      variableValues: channel.variableValues,
      rootValue: root,
      contextValue: {},
    });
    return isPromise(result)
      ? result.then((resolved) => this.encoded(resolved))
      : this.encoded(result);
  }

  /**
   * A result as graphql-ws would put it in a `next` message (`{ data, errors }`, the errors
   * formatted), serialised once.
   */
  encoded(result: ExecutionResult): Encoded {
    const { errors, ...rest } = result;
    const payload = errors
      ? { ...rest, errors: errors.map((error) => this.formatError(error)) }
      : rest;
    return { payloads: [Buffer.from(JSON.stringify(payload))] };
  }

  private formatError(error: GraphQLError) {
    const formatted = error.toJSON();
    if (this.options.suggestions !== false) return formatted;
    return { ...formatted, message: withoutSuggestions(formatted.message) };
  }

  private async snapshot(subscription: LiveSubscription, tournamentId: string, socket: LiveSocket) {
    const channel = subscription.operation;
    let first: ExecutionResult;
    try {
      const game = await this.options.games!.liveGame(await socket.currentOrigin(), tournamentId);
      const view = toLiveGameView(game, this.clock.now());
      const item: GameFeedItem = {
        type: 'GameSnapshot',
        tournamentId,
        gameId: view.gameId,
        occurredAt: view.serverTime,
        game: view,
      };
      first = await execute({
        schema: this.options.schema,
        document: channel.document,
        operationName: channel.operationName,
        variableValues: channel.variableValues,
        rootValue: { gameEvents: item } satisfies LiveRoot,
        contextValue: {},
      });
    } catch (error) {
      const context = { logger: this.options.logger } as GraphQLContext;
      first = { data: null, errors: [toGraphQLError(error, context)] };
    }
    this.core.release(subscription, this.encoded(first));
  }
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as Partial<Promise<T>> | undefined)?.then === 'function';
}
