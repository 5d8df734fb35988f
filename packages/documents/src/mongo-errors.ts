import { isRecord } from './mongo-translate';

const DUPLICATE_KEY = 11000;

/**
 * MongoDB reports code 11000. FerretDB 1.x does too for inserts, but a unique index violated
 * by an update surfaces as an InternalError carrying SQLite's message.
 */
export function isDuplicateKey(error: unknown): boolean {
  if (!isRecord(error)) return false;
  if (error.code === DUPLICATE_KEY) return true;
  const [first] = Array.isArray(error.writeErrors) ? (error.writeErrors as unknown[]) : [];
  if (isRecord(first) && first.code === DUPLICATE_KEY) return true;
  return typeof error.message === 'string' && error.message.includes('UNIQUE constraint failed');
}

/**
 * The index named by the server, if it names one. MongoDB: `index: slug_1 dup key: ...`;
 * FerretDB on updates: `UNIQUE constraint failed: index 'tournaments_<hash>_slug_1'`, where
 * only the caller knows which of its index names is the suffix.
 */
export function namedIndex(error: unknown, indexNames: readonly string[]): string | undefined {
  const message = isRecord(error) && typeof error.message === 'string' ? error.message : '';
  const mongo = /index: (\S+)/.exec(message)?.[1];
  if (mongo !== undefined) return mongo;
  const sqlite = /UNIQUE constraint failed: index '([^']+)'/.exec(message)?.[1];
  if (sqlite === undefined) return undefined;
  return indexNames
    .filter((name) => sqlite.endsWith(`_${name}`))
    .sort((a, b) => b.length - a.length)[0];
}

/** Which documents of an insertMany batch were refused (the driver reports their positions). */
export function refusedPositions(error: unknown): number[] {
  const writeErrors: unknown[] =
    isRecord(error) && Array.isArray(error.writeErrors) ? error.writeErrors : [];
  return writeErrors.flatMap((writeError) =>
    isRecord(writeError) && typeof writeError.index === 'number' ? [writeError.index] : [],
  );
}
