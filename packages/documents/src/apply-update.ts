import { randomUUID } from 'node:crypto';
import { cloneDocument } from './clone';
import { getPath, setPath, unsetPath } from './paths';
import type { Filter, Update } from './port';

type Document = Record<string, unknown>;

const entries = (fields: object | undefined): Array<[string, unknown]> =>
  Object.entries(fields ?? {});

/**
 * MongoDB's update semantics in process: the memory adapter's whole update path, and the Mongo
 * adapter's upserts on servers that cannot be trusted with them (see mongo-locks.ts).
 */

/**
 * Applies an update in place, in MongoDB's order. `$setOnInsert` applies only when the update
 * creates the document (an upsert that matched nothing).
 */
export function applyUpdate<T>(document: Document, update: Update<T>, inserting: boolean): void {
  if (inserting) {
    for (const [path, value] of entries(update.$setOnInsert)) {
      setPath(document, path, cloneDocument(value));
    }
  }
  for (const [path, value] of entries(update.$set)) setPath(document, path, cloneDocument(value));
  for (const [path, by] of entries(update.$inc)) {
    const current = getPath(document, path) ?? 0;
    if (typeof current !== 'number' || typeof by !== 'number') {
      throw new Error(`cannot apply $inc to ${path}: it is not a number`);
    }
    setPath(document, path, current + by);
  }
  for (const [path, value] of entries(update.$push)) {
    const current = getPath(document, path) ?? [];
    if (!Array.isArray(current)) throw new Error(`cannot $push to ${path}: it is not an array`);
    setPath(document, path, [...(current as unknown[]), cloneDocument(value)]);
  }
  for (const [path] of entries(update.$unset)) unsetPath(document, path);
}

/**
 * The document an upsert creates: the filter's equality conditions, then the update; the id
 * from the filter, or a new one.
 */
export function documentFromUpsert<T>(
  filter: Filter<T>,
  update: Update<T>,
): Document & { id: string } {
  const created = seedFromFilter(filter);
  applyUpdate(created, update, true);
  const id = typeof created.id === 'string' ? created.id : randomUUID();
  return { ...created, id };
}

function seedFromFilter<T>(filter: Filter<T>): Document {
  const seed: Document = {};
  for (const [path, condition] of entries(filter)) {
    if (!isOperatorObject(condition)) {
      setPath(seed, path, cloneDocument(condition));
    } else if ('$eq' in condition) {
      setPath(seed, path, cloneDocument(condition.$eq));
    }
  }
  return seed;
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || value instanceof Date) return false;
  if (Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => key.startsWith('$'));
}
