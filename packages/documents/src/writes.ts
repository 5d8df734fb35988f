import { DuplicateKeyError, type Collection, type Identified } from './port';

/**
 * Inserts the document unless its id (or a unique value it holds) is already stored: whether it
 * was inserted. The idempotent write of a redelivered event or a "save once" race; any other
 * failure (an invalid document, the database) throws.
 */
export async function insertOnce<T extends Identified>(
  collection: Collection<T>,
  document: T,
): Promise<boolean> {
  try {
    await collection.insertOne(document);
    return true;
  } catch (error) {
    if (error instanceof DuplicateKeyError) return false;
    throw error;
  }
}

/**
 * The value without its undefined and empty-string fields: an optional field is stored absent,
 * never as '' (which a `required` string refuses, and which reads back unlike absent).
 */
export function withoutEmpty<T extends object>(value: T): T {
  return Object.fromEntries(
    Object.entries(value).filter(([, entry]) => entry !== undefined && entry !== ''),
  ) as T;
}
