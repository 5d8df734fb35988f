import type { GameEvent } from '@underdog/proto';

/**
 * How a game event is described once (game-events.ts holds the descriptions): the field
 * builders, `gameEvent` and the types derived from a description.
 */

/** A field of a view; `T` is its TypeScript type. */
export interface Field<T> {
  /** Its GraphQL type; none for a field the gateway keeps (e.g. who a private event is for). */
  readonly graphql: string | undefined;
  readonly description: string | undefined;
  /** Values for the docs' sample views: `sample` has every field set, `empty` nulls. */
  readonly sample: T;
  readonly empty: T;
}

const fieldOf =
  <T>(graphql: string | undefined, sample: T, empty: T = sample) =>
  (description?: string): Field<T> => ({ graphql, description, sample, empty });

export const int = fieldOf<number>('Int!', 0);
export const boolean = fieldOf<boolean>('Boolean!', false);
export const string = fieldOf<string>('String!', '');
/** ISO 8601, or null. */
export const timeOrNull = fieldOf<string | null>('String', '', null);
export const ids = fieldOf<string[]>('[ID!]!', []);
/** A list of a GraphQL object type's values. */
export const listOf = <T>(type: string) => fieldOf<T[]>(`[${type}!]!`, []);
/** One value of a GraphQL object type, or null. */
export const objectOrNull = <T>(type: string) => fieldOf<T | null>(type, {} as T, null);
/** Kept by the gateway, never sent (e.g. `recipientUserId`, who a private event is for). */
export const gatewayOnly = fieldOf<string>(undefined, '');

export type Fields = Record<string, Field<unknown>>;

/** A case of the proto's `GameEvent.kind` (`gameStarted`; its event is named `GameStarted`). */
export type ProtoCase = NonNullable<GameEvent['kind']['case']>;
type ProtoEvent<N extends string> = Extract<GameEvent['kind'], { case: Uncapitalize<N> }>['value'];
export type ValuesOf<F extends Fields> = {
  [K in keyof F]: F[K] extends Field<infer T> ? T : never;
};

/** The fields every game event has (the `GameEvent` interface's). */
export interface GameEventBase {
  tournamentId: string;
  gameId: string;
  /** ISO 8601. */
  occurredAt: string;
}

/** `RoundExtended` → `round_extended`. */
type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S;
type WsName<N extends string> = SnakeCase<Uncapitalize<N>>;
const wsName = <N extends string>(name: N) =>
  name.replace(/[A-Z]/g, (c, at: number) => (at === 0 ? '' : '_') + c.toLowerCase()) as WsName<N>;

/** One `/ws` message of an event: its type, when it is sent (the docs' words), its fields. */
export interface WsMessage<V, M extends { type: string }> {
  readonly type: M['type'];
  readonly when: string;
  readonly build: (view: V) => M;
}

/** A `/ws` message built from the view with a type of its own (the spec's names). */
export const message = <V, T extends string, B extends object>(
  type: T,
  when: string,
  body: (view: V) => B,
): WsMessage<V, { type: T } & B> =>
  ({ type, when, build: (view) => ({ type, ...body(view) }) }) as WsMessage<V, { type: T } & B>;

/** Any description, its view and messages unknown (to read it, not to build messages from). */
export interface AnyGameEventDescription {
  readonly name: string;
  readonly description: string | undefined;
  readonly fields: Fields;
  readonly fromProto: (event: never, now: Date) => object;
  readonly ws: readonly WsMessage<never, { type: string }>[];
}

export interface GameEventDescription<
  N extends string,
  F extends Fields,
  M extends { type: string },
> {
  readonly name: N;
  /** The GraphQL type's description; the "when" of its `/ws` message unless `ws` says. */
  readonly description: string | undefined;
  readonly fields: F;
  /** The view's fields from the proto's case of the same name; `now` computes time left. */
  readonly fromProto: (event: ProtoEvent<N>, now: Date) => ValuesOf<F>;
  readonly ws: readonly WsMessage<GameEventBase & { type: N } & ValuesOf<F>, M>[];
}

export type ViewOf<N extends string, F extends Fields> = GameEventBase & { type: N } & ValuesOf<F>;

type Make<V> = <T extends string, B extends object>(
  type: T,
  when: string,
  body: (view: V) => B,
) => WsMessage<V, { type: T } & B>;
type MessagesOf<W> = W extends readonly WsMessage<never, infer M>[] ? M : never;

/** One game event: a custom `ws` keeps the spec's messages; without it, the default one. */
export function gameEvent<
  N extends Capitalize<ProtoCase>,
  F extends Fields,
  W extends readonly WsMessage<ViewOf<N, F>, { type: string }>[],
>(
  name: N,
  spec: {
    description?: string;
    fields: F;
    fromProto: (event: ProtoEvent<N>, now: Date) => ValuesOf<F>;
    ws: (message: Make<ViewOf<N, F>>) => W;
  },
): GameEventDescription<N, F, MessagesOf<W>>;
export function gameEvent<N extends Capitalize<ProtoCase>, F extends Fields>(
  name: N,
  spec: {
    description: string;
    fields: F;
    fromProto: (event: ProtoEvent<N>, now: Date) => ValuesOf<F>;
  },
): GameEventDescription<N, F, { type: WsName<N> } & Omit<ViewOf<N, F>, 'type'>>;
export function gameEvent(
  name: string,
  spec: {
    description?: string;
    fields: Fields;
    fromProto: (event: never, now: Date) => object;
    ws?: (make: typeof message) => readonly WsMessage<unknown, { type: string }>[];
  },
): AnyGameEventDescription {
  const ws = spec.ws
    ? spec.ws(message)
    : [
        message(wsName(name), spec.description ?? '', (view: { type: string }) => {
          const { type: _type, ...fields } = view;
          return fields;
        }),
      ];
  const { description, fields, fromProto } = spec;
  return { name, description, fields, fromProto, ws };
}

/** The view of a description (`gameEvents[number]`). */
export type ViewOfDescription<D> = D extends {
  name: infer N extends string;
  fields: infer F extends Fields;
}
  ? ViewOf<N, F>
  : never;
/** The `/ws` messages of a description. */
export type MessageOfDescription<D> = D extends { ws: readonly WsMessage<never, infer M>[] }
  ? M
  : never;
