import type { QueryFilter, UpdateQuery } from 'mongoose';
import type { Filter, FindOptions, Identified, Update } from './port';
import type { StoredDocument } from './schema';

// Mongoose's query and update types are generic over the schema's type; the models here are
// built at run time, so the translated objects are plain records handed over as they are.
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

/** The filter narrowed to these documents, which already matched it once. */
export function onlyDocuments(filter: MongoFilter, ids: readonly string[]): MongoFilter {
  return { ...filter, _id: { $in: [...ids] } } as MongoFilter;
}

export function toMongoSort<T>(sort: FindOptions<T>['sort']): MongoSort | undefined {
  return sort && renameId(sort as MongoSort);
}

export function toMongoUpdate<T>(update: Update<T>): MongoUpdate {
  return { ...update } as MongoUpdate;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
