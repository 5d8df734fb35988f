import { systemClock, type Clock, type Logger } from '@underdog/kit';
import {
  GraphQLError,
  Kind,
  execute,
  getOperationAST,
  print,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { getArgumentValues, getVariableValues } from 'graphql/execution/values';
import type { RealtimeListener } from '../../realtime/hub';
import type { RealtimeMetrics } from '../../realtime/metrics';
import type { LiveGamePort, RealtimeLimits } from '../../realtime/ports';
import { SlicedFanOut } from '../../realtime/sliced-fan-out';
import {
  toLiveGameView,
  type GameEventView,
  type GameFeedItem,
  type TournamentChange,
} from '../../realtime/views';
import type { TournamentView } from '../../tournaments';
import type { GraphQLContext } from '../context';
import { toGraphQLError } from '../errors';
import type { LiveRoot } from './resolvers';

type LiveField = 'gameEvents' | 'tournamentsChanged';

/**
 * Each document's text, printed once: graphql-ws hands the same document to every subscriber
 * of an operation (the endpoint checks each operation text once), so a connect storm does not
 * print it per subscriber.
 */
const printedDocuments = new WeakMap<DocumentNode, string>();

function printedOnce(document: DocumentNode): string {
  let text = printedDocuments.get(document);
  if (text === undefined) printedDocuments.set(document, (text = print(document)));
  return text;
}

/** Results held for a subscriber graphql-ws has not pulled yet; past this it is dropped. */
const maxQueuedResults = 1000;

/**
 * One subscriber's stream of results: graphql-ws pulls from it and sends each as a `next`
 * message. The results are shared: the same object goes to every subscriber of a group.
 */
class Feed implements AsyncIterableIterator<ExecutionResult> {
  private readonly queue: ExecutionResult[] = [];
  private waiting: ((result: IteratorResult<ExecutionResult>) => void) | undefined;
  private ended = false;
  /** Results held back while the snapshot loads, so the snapshot comes first. */
  held: ExecutionResult[] | null = null;

  constructor(
    readonly context: GraphQLContext,
    private readonly onEnd: (feed: Feed) => void,
  ) {}

  /** False when the subscriber could not keep up and was dropped. */
  push(result: ExecutionResult, limits: RealtimeLimits): boolean {
    if (this.ended) return true;
    if (this.held) {
      this.held.push(result);
      return this.held.length <= maxQueuedResults || this.drop();
    }
    const socket = this.context.webSocket;
    if (socket && socket.bufferedAmount > limits.maxBufferedBytes) return this.drop();
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: result, done: false });
      return true;
    }
    this.queue.push(result);
    return this.queue.length <= maxQueuedResults || this.drop();
  }

  release(first: ExecutionResult | undefined, limits: RealtimeLimits): void {
    const held = this.held ?? [];
    this.held = null;
    if (first) this.push(first, limits);
    for (const result of held) this.push(result, limits);
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    const value = this.queue.shift();
    if (value) return Promise.resolve({ value, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator]() {
    return this;
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.queue.length = 0;
    this.held = null;
    this.waiting?.({ value: undefined, done: true });
    this.waiting = undefined;
    this.onEnd(this);
  }

  private drop(): false {
    this.end();
    this.context.webSocket?.terminate();
    return false;
  }
}

/** Subscribers of one field with the same document, operation and variables. */
interface Group {
  key: string;
  field: LiveField;
  tournamentId: string | null;
  document: DocumentNode;
  operationName: string | null | undefined;
  variableValues: Record<string, unknown>;
  feeds: Set<Feed>;
}

export interface LiveFeedsOptions {
  schema: GraphQLSchema;
  logger: Logger;
  limits: RealtimeLimits;
  metrics: RealtimeMetrics;
  games?: LiveGamePort | undefined;
  /** The server clock the snapshot's time left is measured by; default: the system clock. */
  clock?: Clock;
}

/**
 * The graphql-ws subscriptions `tournamentsChanged` and `gameEvents`, fed by the fan-out
 * (docs/adr: "one execution per event"): subscribers with the same operation form a group;
 * each event is executed once per group and the same result handed to every subscriber, so
 * the work per event grows with the number of distinct operations, not of subscribers.
 */
export class LiveFeeds implements RealtimeListener {
  private readonly groups = new Map<string, Group>();
  private readonly byTournament = new Map<string, Set<Group>>();
  private readonly listGroups = new Set<Group>();
  private readonly clock: Clock;
  /**
   * The results handed to the subscribers a slice at a time, the live total paced: the same
   * policy as `/ws` (realtime/sliced-fan-out.ts). Handing a result to a feed resumes
   * graphql-ws's send to that socket in the same turn, so 1,000 subscribers in one turn held up
   * every vote arriving meanwhile by the whole burst (docs/benchmarks.md, issue 25).
   */
  private readonly fanOut: SlicedFanOut<Feed>;
  /** Results handed to every subscriber of a group, and their JSON once serialised. */
  private readonly broadcast = new WeakSet<ExecutionResult>();
  private readonly serialisedResults = new WeakMap<ExecutionResult, string>();

  constructor(private readonly options: LiveFeedsOptions) {
    this.clock = options.clock ?? systemClock;
    this.fanOut = new SlicedFanOut(options.limits.fanOutSliceSize, (error) =>
      options.logger.error({ err: error }, 'graphql-ws broadcast to one socket failed'),
    );
  }

  /** graphql-ws's `subscribe`: only called for subscription operations. */
  subscribe = async (
    args: ExecutionArgs,
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> => {
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
    try {
      const argumentValues = getArgumentValues(fieldDef, fieldNode, variables.coerced);
      if (field === 'gameEvents') tournamentId = String(argumentValues.tournamentId).trim();
    } catch (error) {
      return { errors: [error instanceof GraphQLError ? error : new GraphQLError('Bad input')] };
    }
    if (tournamentId !== null && (tournamentId === '' || tournamentId.length > 200)) {
      return {
        errors: [
          new GraphQLError('tournamentId is invalid', { extensions: { code: 'BAD_REQUEST' } }),
        ],
      };
    }

    const group = this.groupFor({
      field,
      tournamentId,
      document: args.document,
      operationName: args.operationName,
      variableValues: variables.coerced,
    });
    const context = args.contextValue as GraphQLContext;
    const feed = new Feed(context, (ended) => this.leave(group, ended));
    group.feeds.add(feed);
    if (tournamentId !== null && this.options.games) {
      feed.held = [];
      void this.snapshot(group, feed, tournamentId);
    }
    return feed;
  };

  async gameEvent(view: GameEventView): Promise<void> {
    const groups = this.byTournament.get(view.tournamentId);
    if (!groups) return;
    for (const group of [...groups]) await this.deliver(group, { gameEvents: view });
  }

  async tournamentChange(change: TournamentChange, list: TournamentView[] | null): Promise<void> {
    if (!list) return; // the change is announced with the list; without it there is nothing true to say
    for (const group of [...this.listGroups]) {
      await this.deliver(group, { tournamentsChanged: { ...change, tournaments: list } });
    }
  }

  /**
   * The JSON of a result this fan-out hands to every subscriber of an operation, serialised
   * once for all of them (graphql-ws's `next` payload); undefined for any other result (a
   * query's, a mutation's, a snapshot, one with errors), which graphql-ws serialises itself.
   */
  serialised(result: ExecutionResult): string | undefined {
    if (!this.broadcast.has(result)) return undefined;
    let json = this.serialisedResults.get(result);
    if (json === undefined) this.serialisedResults.set(result, (json = JSON.stringify(result)));
    return json;
  }

  /** How many distinct operations are being fed (tests and diagnostics). */
  groupCount(): number {
    return this.groups.size;
  }

  private async deliver(group: Group, root: LiveRoot) {
    const result = await execute({
      schema: this.options.schema,
      document: group.document,
      operationName: group.operationName,
      variableValues: group.variableValues,
      rootValue: root,
      contextValue: {},
    });
    if (!result.errors) this.broadcast.add(result);
    this.fanOut.push(
      [...group.feeds],
      (feed) => {
        if (!feed.push(result, this.options.limits)) {
          this.options.metrics.slowConsumersDropped.inc({ protocol: 'graphql-ws' });
        }
      },
      // The live total is news, superseded a second later: paced, so votes go first.
      root.gameEvents?.type === 'VoteTotal' ? this.options.limits.voteTotalSpreadMs : 0,
    );
  }

  private async snapshot(group: Group, feed: Feed, tournamentId: string) {
    let first: ExecutionResult;
    try {
      const game = await this.options.games!.liveGame(feed.context.origin, tournamentId);
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
        document: group.document,
        operationName: group.operationName,
        variableValues: group.variableValues,
        rootValue: { gameEvents: item } satisfies LiveRoot,
        contextValue: {},
      });
    } catch (error) {
      first = { data: null, errors: [toGraphQLError(error, feed.context)] };
    }
    feed.release(first, this.options.limits);
  }

  private groupFor(spec: Omit<Group, 'key' | 'feeds'>): Group {
    const key = JSON.stringify([
      spec.field,
      spec.tournamentId,
      printedOnce(spec.document),
      spec.operationName ?? null,
      spec.variableValues,
    ]);
    let group = this.groups.get(key);
    if (group) return group;
    group = { ...spec, key, feeds: new Set() };
    this.groups.set(key, group);
    if (spec.tournamentId === null) {
      this.listGroups.add(group);
    } else {
      let groups = this.byTournament.get(spec.tournamentId);
      if (!groups) this.byTournament.set(spec.tournamentId, (groups = new Set()));
      groups.add(group);
    }
    return group;
  }

  private leave(group: Group, feed: Feed) {
    group.feeds.delete(feed);
    if (group.feeds.size > 0) return;
    this.groups.delete(group.key);
    if (group.tournamentId === null) {
      this.listGroups.delete(group);
      return;
    }
    const groups = this.byTournament.get(group.tournamentId);
    groups?.delete(group);
    if (groups?.size === 0) this.byTournament.delete(group.tournamentId);
  }
}

/** The one root field of a subscription (validation allows exactly one), through fragments. */
function rootField(document: DocumentNode, selectionSet: SelectionSetNode): FieldNode | undefined {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) return selection;
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const found = rootField(document, selection.selectionSet);
      if (found) return found;
    }
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = document.definitions.find(
        (definition) =>
          definition.kind === Kind.FRAGMENT_DEFINITION &&
          definition.name.value === selection.name.value,
      );
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION) {
        const found = rootField(document, fragment.selectionSet);
        if (found) return found;
      }
    }
  }
  return undefined;
}
