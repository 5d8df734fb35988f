import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/**
 * What one request carries through every process it touches: for now its id. The HTTP app sets
 * it per request, `@underdog/rpc` passes it to the called service, `@underdog/bus` puts it in a
 * Kafka header and restores it around the consumer's handling, and the logger adds it to every
 * line written while it is set.
 */
export interface RequestContext {
  requestId: string;
}

/** The header that carries the id on HTTP requests and responses, RPCs and Kafka messages. */
export const REQUEST_ID_HEADER = 'x-request-id';

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * An incoming id is adopted only when it is sane: 1 to 128 characters of letters, digits and
 * `._:-` (UUIDs, ULIDs, most proxies' ids). Anything else could forge log lines or bloat them.
 */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function isSaneRequestId(value: string): boolean {
  return SANE_REQUEST_ID.test(value);
}

/** The incoming id when it is sane, else a new one. */
export function acceptRequestId(incoming: string | null | undefined): string {
  const candidate = incoming?.trim();
  return candidate && isSaneRequestId(candidate) ? candidate : randomUUID();
}

/** Runs `work` with `requestId` as the current request's id (also for everything it awaits). */
export function runWithRequestId<T>(requestId: string, work: () => T): T {
  return storage.run({ requestId }, work);
}

/**
 * Runs `work` outside any request, whatever the caller's context: work that merely happens to
 * be started from a request (a consumer loop woken by a publish) must not carry its id.
 */
export function runWithoutRequestId<T>(work: () => T): T {
  return storage.exit(work);
}

/** The id of the request being handled, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
