import { Query } from 'mingo';

/**
 * The memory adapter's filter evaluation without `mingo` where it matters: equality and `$in`
 * on a top-level field, which the services' hot paths use (a round's eliminations by user id,
 * lookups by id). Such a condition compiles to a Set, tested per document in O(1) and answered
 * from a field's hash index; anything else (other operators, dot paths, `$or`, values that are
 * objects, arrays, regular expressions, NaN or undefined) stays with `mingo`. The semantics are
 * MongoDB's: an array field matches when one of its elements does (never a nested array or an
 * object), `null` matches null, a missing field and an array holding null, values of different
 * types are never equal (1 is not '1'), Dates are equal when their times are.
 */

/** A value a hash key can hold as it is: Map and Set compare these by type and value. */
export type Scalar = string | number | boolean | null;

/** `{ field: value }`, `{ field: { $eq: value } }` or `{ field: { $in: values } }`. */
export interface Equality {
  field: string;
  scalars: Set<Scalar>;
  /** Dates by their time (a separate set: a Date never equals a number). */
  dates: Set<number>;
}

export interface CompiledFilter {
  equalities: Equality[];
  /** The rest of the filter, ANDed: what mingo evaluates. */
  rest: Query | undefined;
}

export function compileFilter(filter: Record<string, unknown>): CompiledFilter {
  const equalities: Equality[] = [];
  const rest: Record<string, unknown> = {};
  for (const [field, condition] of Object.entries(filter)) {
    const equality = isPlainField(field) ? equalityOf(field, condition) : undefined;
    if (equality) equalities.push(equality);
    else rest[field] = condition;
  }
  return { equalities, rest: Object.keys(rest).length > 0 ? new Query(rest) : undefined };
}

/** Whether a document's field value satisfies the equality, as MongoDB decides. */
export function matchesEquality(value: unknown, equality: Equality): boolean {
  if (!Array.isArray(value)) return elementMatches(value, equality);
  for (const element of value as unknown[]) {
    if (elementMatches(element, equality)) return true;
  }
  return false;
}

/**
 * The hash keys a document's field value is found under: exactly the equalities it can
 * satisfy (see `matchesEquality`), so a lookup by key misses no match. Each element of an array
 * (the value itself otherwise) gives a scalar or a date's time, passed to `visit` with `context`:
 * no closure per call, as it runs for every indexed field of every document written.
 */
function visitKeys<K>(
  value: unknown,
  visit: (key: Scalar | undefined, time: number | undefined, context: K) => void,
  context: K,
): void {
  if (!Array.isArray(value)) {
    visitElement(value, visit, context);
    return;
  }
  for (const element of value as unknown[]) visitElement(element, visit, context);
}

function visitElement<K>(
  element: unknown,
  visit: (key: Scalar | undefined, time: number | undefined, context: K) => void,
  context: K,
): void {
  const scalar = scalarKey(element);
  if (scalar !== undefined) visit(scalar, undefined, context);
  else {
    const time = dateKey(element);
    if (time !== undefined) visit(undefined, time, context);
  }
}

function elementMatches(element: unknown, equality: Equality): boolean {
  const scalar = scalarKey(element);
  if (scalar !== undefined) return equality.scalars.has(scalar);
  const time = dateKey(element);
  return time !== undefined && equality.dates.has(time);
}

/** null for null and missing; the value for a string, number or boolean; otherwise undefined. */
function scalarKey(element: unknown): Scalar | undefined {
  if (element === null || element === undefined) return null;
  const type = typeof element;
  return type === 'string' || type === 'number' || type === 'boolean'
    ? (element as Scalar)
    : undefined;
}

function dateKey(element: unknown): number | undefined {
  return element instanceof Date ? element.getTime() : undefined;
}

/** A top-level field: no operator (`$or`), no dot path (those traverse arrays of objects). */
function isPlainField(field: string): boolean {
  return !field.startsWith('$') && !field.includes('.');
}

function equalityOf(field: string, condition: unknown): Equality | undefined {
  if (isOperators(condition)) {
    const operators = Object.keys(condition);
    if (operators.length !== 1) return undefined;
    if (operators[0] === '$eq') return equalityTo(field, [condition.$eq]);
    if (operators[0] === '$in' && Array.isArray(condition.$in)) {
      return equalityTo(field, condition.$in as unknown[]);
    }
    return undefined;
  }
  return equalityTo(field, [condition]);
}

/** A plain object (`{ $in: … }`, or a subdocument to match whole): not a Date, array or RegExp. */
function isOperators(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Date) &&
    !(value instanceof RegExp)
  );
}

/** The equality to any of `values`, or undefined when one is not a value it can hash. */
function equalityTo(field: string, values: readonly unknown[]): Equality | undefined {
  const equality: Equality = { field, scalars: new Set(), dates: new Set() };
  for (const value of values) {
    if (value === null) {
      equality.scalars.add(null);
    } else if (
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && !Number.isNaN(value))
    ) {
      equality.scalars.add(value);
    } else if (value instanceof Date && !Number.isNaN(value.getTime())) {
      equality.dates.add(value.getTime());
    } else {
      return undefined;
    }
  }
  return equality;
}

/** The ids holding one key: a lone id as it is (most keys have one), several in a Set. */
type Holders = string | Set<string>;

/**
 * A hash index of one top-level field: key → ids of the documents holding it (every element of
 * an array; null for null and missing). Answers the candidates of an equality on the field.
 */
export class FieldIndex {
  private readonly scalars = new Map<Scalar, Holders>();
  private readonly dates = new Map<number, Holders>();

  constructor(readonly field: string) {}

  add(id: string, document: Record<string, unknown>): void {
    visitKeys(document[this.field], holdIn, { scalars: this.scalars, dates: this.dates, id });
  }

  remove(id: string, document: Record<string, unknown>): void {
    visitKeys(document[this.field], releaseIn, { scalars: this.scalars, dates: this.dates, id });
  }

  /** How many ids `candidates` would answer, counting a document under two keys twice. */
  count(equality: Equality): number {
    let total = 0;
    for (const key of equality.scalars) total += sizeOf(this.scalars.get(key));
    for (const time of equality.dates) total += sizeOf(this.dates.get(time));
    return total;
  }

  /** The ids of every document that may satisfy the equality (each once). */
  candidates(equality: Equality): Iterable<string> {
    const ids = new Set<string>();
    const collect = (holders: Holders | undefined): void => {
      if (typeof holders === 'string') ids.add(holders);
      else if (holders) for (const id of holders) ids.add(id);
    };
    for (const key of equality.scalars) collect(this.scalars.get(key));
    for (const time of equality.dates) collect(this.dates.get(time));
    return ids;
  }
}

function sizeOf(holders: Holders | undefined): number {
  if (holders === undefined) return 0;
  return typeof holders === 'string' ? 1 : holders.size;
}

/** An index's maps and the document an `add` or `remove` is about. */
interface Holding {
  scalars: Map<Scalar, Holders>;
  dates: Map<number, Holders>;
  id: string;
}

const holdIn = (key: Scalar | undefined, time: number | undefined, at: Holding): void => {
  if (key !== undefined) hold(at.scalars, key, at.id);
  else hold(at.dates, time!, at.id);
};

const releaseIn = (key: Scalar | undefined, time: number | undefined, at: Holding): void => {
  if (key !== undefined) release(at.scalars, key, at.id);
  else release(at.dates, time!, at.id);
};

function hold<K>(map: Map<K, Holders>, key: K, id: string): void {
  const holders = map.get(key);
  if (holders === undefined) map.set(key, id);
  else if (typeof holders !== 'string') holders.add(id);
  else if (holders !== id) map.set(key, new Set([holders, id]));
}

function release<K>(map: Map<K, Holders>, key: K, id: string): void {
  const holders = map.get(key);
  if (holders === id) {
    map.delete(key);
  } else if (typeof holders !== 'string' && holders?.delete(id)) {
    if (holders.size === 1) map.set(key, holders.values().next().value as string);
  }
}
