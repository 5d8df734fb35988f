/**
 * A deep copy of document data. Not `structuredClone`: it builds Dates in the realm that owns
 * the global, and under Jest (a separate VM context per test file) those fail `instanceof Date`
 * in the test's own realm — and in sift's Date comparisons.
 */
export function cloneDocument<T>(value: T): T {
  return clone(value) as T;
}

function clone(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Date || Object.prototype.toString.call(value) === '[object Date]') {
    return new Date((value as Date).getTime());
  }
  if (Array.isArray(value)) return value.map(clone);
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype === Object.prototype || prototype === null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, clone(item)]));
  }
  return structuredClone(value);
}
