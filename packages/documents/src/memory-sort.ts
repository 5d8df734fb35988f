import { getPath } from './paths';
import type { Sort } from './port';

/** MongoDB orders values of different types by type first: null < numbers < strings < ... */
function typeRank(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number') return 1;
  if (typeof value === 'string') return 2;
  if (Array.isArray(value)) return 4;
  if (typeof value === 'boolean') return 5;
  if (value instanceof Date) return 6;
  return 3;
}

export function compareValues(a: unknown, b: unknown): number {
  const rankDifference = typeRank(a) - typeRank(b);
  if (rankDifference !== 0) return rankDifference;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const [left, right] = [JSON.stringify(a) ?? '', JSON.stringify(b) ?? ''];
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * An array sorts by its smallest element ascending and its largest descending, as in MongoDB.
 */
function sortKey(value: unknown, direction: 1 | -1): unknown {
  if (!Array.isArray(value) || value.length === 0) return value;
  return value.reduce((best: unknown, item: unknown) =>
    compareValues(item, best) * direction < 0 ? item : best,
  );
}

export function comparatorFor<T>(sort: Sort<T>): (a: T, b: T) => number {
  const keys = Object.entries(sort).filter(
    (entry): entry is [string, 1 | -1] => entry[1] === 1 || entry[1] === -1,
  );
  return (a, b) => {
    for (const [path, direction] of keys) {
      const difference = compareValues(
        sortKey(getPath(a, path), direction),
        sortKey(getPath(b, path), direction),
      );
      if (difference !== 0) return difference * direction;
    }
    return 0;
  };
}
