/** Dot-path access into plain documents, the way MongoDB resolves `prize.amount` or `tags.0`. */

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null && !(value instanceof Date);
}

function child(container: Container, segment: string): unknown {
  return Array.isArray(container) ? container[Number(segment)] : container[segment];
}

function assign(container: Container, segment: string, value: unknown): void {
  if (Array.isArray(container)) container[Number(segment)] = value;
  else container[segment] = value;
}

export function getPath(document: unknown, path: string): unknown {
  let current = document;
  for (const segment of path.split('.')) {
    if (!isContainer(current)) return undefined;
    current = child(current, segment);
  }
  return current;
}

/** Creates the objects along the way, as `$set: { 'a.b': 1 }` does. */
export function setPath(document: Record<string, unknown>, path: string, value: unknown): void {
  const segments = path.split('.');
  const last = segments.pop() ?? path;
  let current: Container = document;
  for (const segment of segments) {
    let next = child(current, segment);
    if (next === undefined || next === null) {
      next = {};
      assign(current, segment, next);
    }
    if (!isContainer(next)) {
      throw new Error(`cannot create field ${segment} of ${path} inside a ${typeof next}`);
    }
    current = next;
  }
  assign(current, last, value);
}

export function unsetPath(document: Record<string, unknown>, path: string): void {
  const segments = path.split('.');
  const last = segments.pop() ?? path;
  const parent = segments.length === 0 ? document : getPath(document, segments.join('.'));
  if (!isContainer(parent)) return;
  // MongoDB leaves a null in place of an unset array element rather than shifting the rest.
  if (Array.isArray(parent)) parent[Number(last)] = null;
  else delete parent[last];
}
