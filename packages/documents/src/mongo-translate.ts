import type { Model, QueryFilter, UpdateQuery } from 'mongoose';
import type { Filter, FindOptions, Identified, Update } from './port';

/** A document as MongoDB holds it: our `id` is its `_id`. */
export type StoredDocument = { _id: string } & Record<string, unknown>;
export type StoredModel = Model<StoredDocument>;

// Mongoose's query and update types are generic over the schema; ours is permissive, so the
// translated objects are plain records handed over as they are.
export type MongoFilter = QueryFilter<StoredDocument>;
export type MongoUpdate = UpdateQuery<StoredDocument>;
export type MongoSort = Record<string, 1 | -1>;

export function toStored<T extends Identified>({ id, ...fields }: T): StoredDocument {
  return { _id: id, ...fields };
}

export function fromStored<T extends Identified>(document: StoredDocument | null): T | null {
  if (document === null) return null;
  const { _id, ...fields } = document;
  return { id: _id, ...fields } as unknown as T;
}

function renameId<V>(fields: Record<string, V>): Record<string, V> {
  return Object.fromEntries(
    Object.entries(fields).map(([field, value]) => [field === 'id' ? '_id' : field, value]),
  );
}

export function toMongoFilter<T>(filter: Filter<T>): MongoFilter {
  return renameId(filter as Record<string, unknown>) as MongoFilter;
}

/** The filter narrowed to one document, which already matched it once. */
export function onlyDocument(filter: MongoFilter, id: string): MongoFilter {
  return { ...filter, _id: id } as MongoFilter;
}

export function toMongoSort<T>(sort: FindOptions<T>['sort']): MongoSort | undefined {
  return sort && renameId(sort as MongoSort);
}

export function toMongoUpdate<T>(update: Update<T>): MongoUpdate {
  return { ...update } as MongoUpdate;
}

export function hasIdEquality<T>(filter: Filter<T>): boolean {
  const id: unknown = (filter as Record<string, unknown>).id;
  return typeof id === 'string' || (isRecord(id) && typeof id.$eq === 'string');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
