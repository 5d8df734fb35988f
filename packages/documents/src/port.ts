import type { InferSchemaType, Schema } from 'mongoose';

/**
 * Document persistence: users, tournaments, games, ads — the records that outlive a process.
 * MongoDB (or FerretDB) in distributed mode, in-memory collections in standalone mode.
 * Filters and updates are the MongoDB subset both adapters implement identically; every write
 * is validated against the collection's mongoose schema by both.
 */

/** What every stored document has: a string id (MongoDB's `_id`). */
export interface Identified {
  id: string;
}

/** `field` or a dot path into nested objects (`prize.amount`). */
type DotPath = `${string}.${string}`;

export interface IndexDefinition {
  /** Field (or dot path) → 1 ascending, -1 descending; order matters for compound indexes. */
  fields: Record<string, 1 | -1>;
  unique?: boolean;
}

export interface CollectionDefinition<T extends Identified> {
  name: string;
  /**
   * What a document may hold: types, required fields, enums, bounds. Without `_id` (the
   * adapters add it as a string); a field it does not declare is refused.
   */
  schema: Schema;
  indexes?: IndexDefinition[];
  /** Type-only, never set: the document type, inferred from the schema by `defineCollection`. */
  readonly documentType?: T;
}

type Flat<T> = { [K in keyof T]: T[K] };

/** The document type a schema describes, with our string `id`. */
export type InferDocument<S extends Schema> = Flat<
  { id: string } & Omit<InferSchemaType<S>, '_id'>
>;

/** The document type of a collection: `DocumentOf<typeof usersCollection>`. */
export type DocumentOf<D> = D extends CollectionDefinition<infer T> ? T : never;

/** A collection whose document type is inferred from its schema. */
export function defineCollection<S extends Schema>(definition: {
  name: string;
  schema: S;
  indexes?: IndexDefinition[];
}): CollectionDefinition<InferDocument<S>> {
  return definition;
}

export interface Operators<V> {
  $eq?: V;
  $ne?: V;
  $in?: readonly V[];
  $nin?: readonly V[];
  $lt?: V;
  $lte?: V;
  $gt?: V;
  $gte?: V;
  $exists?: boolean;
}

/** An array field matches a single element, as in MongoDB: `{ tags: 'final' }`. */
type Matchable<V> = V extends readonly (infer E)[] ? V | E : V;

type Condition<V> = Matchable<V> | null | Operators<Matchable<V> | null>;

/** Conditions on fields are ANDed; `{ field: null }` matches a missing field too. */
export type Filter<T> = { [K in keyof T & string]?: Condition<T[K]> } & {
  [path: DotPath]: unknown;
};

export type Sort<T> = { [K in (keyof T & string) | DotPath]?: 1 | -1 };

type NumericKeys<T> = {
  [K in keyof T & string]: T[K] extends number | undefined ? K : never;
}[keyof T & string];
type ArrayKeys<T> = {
  [K in keyof T & string]: T[K] extends readonly unknown[] | undefined ? K : never;
}[keyof T & string];
type Element<V> = V extends readonly (infer E)[] ? E : never;
type Fields<T> = Omit<T, 'id'>;

/** The id never changes. */
export interface Update<T> {
  $set?: Partial<Fields<T>> & { [path: DotPath]: unknown };
  $inc?: { [K in NumericKeys<T>]?: number } & { [path: DotPath]: number };
  $unset?: { [K in keyof Fields<T> & string]?: true } & { [path: DotPath]: true };
  $push?: { [K in ArrayKeys<T>]?: Element<T[K]> } & { [path: DotPath]: unknown };
}

export interface FindOptions<T> {
  sort?: Sort<T>;
  /** 0 or absent: no limit. */
  limit?: number;
}

export interface UpdateOneOptions<T> {
  /** Which document to update when several match. */
  sort?: Sort<T>;
}

export interface InsertManyOptions {
  /**
   * true (the default): in order, stopping at the first duplicate (earlier documents stay
   * inserted). false: every document that can be inserted is, then the duplicates are reported
   * together — replaying a batch inserts only what is missing.
   */
  ordered?: boolean;
}

export interface Collection<T extends Identified> {
  readonly name: string;
  /**
   * Throws `DuplicateKeyError` when the id or a unique index value is taken, and
   * `DocumentValidationError` when the document does not fit the schema.
   */
  insertOne(document: T): Promise<void>;
  /**
   * Every document is validated before any is written. A duplicate throws `DuplicateKeyError`
   * (with every refused position when not ordered).
   */
  insertMany(documents: readonly T[], options?: InsertManyOptions): Promise<void>;
  findById(id: string): Promise<T | null>;
  findOne(filter: Filter<T>, options?: Pick<FindOptions<T>, 'sort'>): Promise<T | null>;
  find(filter: Filter<T>, options?: FindOptions<T>): Promise<T[]>;
  count(filter: Filter<T>): Promise<number>;
  /**
   * Atomically updates one matching document and returns it as it is after the update, or
   * null when nothing matched. The filter is checked and the update applied as one step, so
   * of several callers racing on `{ id, status: 'upcoming' }` exactly one gets the document.
   * An update leaving the document outside its schema throws `DocumentValidationError`.
   */
  updateOne(filter: Filter<T>, update: Update<T>, options?: UpdateOneOptions<T>): Promise<T | null>;
  /**
   * How many documents matched (and were updated). Atomic per document, not as a whole: a
   * document the update would leave invalid throws, and the ones updated before it stay so.
   */
  updateMany(filter: Filter<T>, update: Update<T>): Promise<number>;
  /** Whether a document was deleted. */
  deleteOne(filter: Filter<T>): Promise<boolean>;
  /** How many documents were deleted. */
  deleteMany(filter: Filter<T>): Promise<number>;
}

/**
 * Documents come back as copies, Dates as Dates. Declare every collection, then `init()`
 * (idempotent) before relying on its unique indexes.
 */
export interface DocumentStore {
  /** The same name returns the same collection; a different definition for it throws. */
  collection<T extends Identified>(definition: CollectionDefinition<T>): Collection<T>;
  /** Creates the declared indexes of every collection declared so far. */
  init(): Promise<void>;
  /** Resolves when the database answers; rejects otherwise. */
  ping(): Promise<void>;
  /** Releases the connection; operations reject afterwards. Safe to call twice. */
  close(): Promise<void>;
}

/** A unique index (`_id_` for the id) refused a write. */
export class DuplicateKeyError extends Error {
  readonly code = 'DUPLICATE_KEY';

  constructor(
    readonly collection: string,
    readonly index: string,
    options?: ErrorOptions & {
      /** Positions in an unordered `insertMany` batch that were refused. */
      refused?: readonly number[];
    },
  ) {
    super(`duplicate key in ${collection} (index ${index})`, options);
    this.name = 'DuplicateKeyError';
    this.refused = options?.refused ?? [];
  }

  readonly refused: readonly number[];
}

/** A write that does not fit the collection's schema; nothing was written. */
export class DocumentValidationError extends Error {
  readonly code = 'DOCUMENT_INVALID';

  constructor(
    readonly collection: string,
    /** The offending fields (dot paths), as mongoose names them. */
    readonly paths: readonly string[],
    options?: ErrorOptions,
  ) {
    super(`invalid document for ${collection}: ${paths.join(', ')}`, options);
    this.name = 'DocumentValidationError';
  }
}

/** MongoDB's default index name: `slug_1`, `tournamentId_1_userId_1`. */
export function indexName(fields: IndexDefinition['fields']): string {
  return Object.entries(fields)
    .map(([field, direction]) => `${field === 'id' ? '_id' : field}_${direction}`)
    .join('_');
}

export const ID_INDEX = '_id_';
