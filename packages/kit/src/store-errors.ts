/**
 * Redis's refusals that mean "not now" rather than "never": a demoted primary (READONLY, a
 * Sentinel failover), a replica still loading its data (LOADING), a primary that lost its
 * replicas or link (MASTERDOWN, NOREPLICAS), a busy script (BUSY), a failed persistence that
 * stops writes (MISCONF), a cluster in flux (TRYAGAIN, CLUSTERDOWN).
 */
const transientReplies = new Set([
  'READONLY',
  'LOADING',
  'MASTERDOWN',
  'NOREPLICAS',
  'BUSY',
  'MISCONF',
  'TRYAGAIN',
  'CLUSTERDOWN',
]);

/** ioredis's own failures of a command that never got an answer (connection lost, queue full). */
const connectionMessages = [
  'Connection is closed',
  'Command timed out',
  "Stream isn't writeable",
  'Reached the max retries per request limit',
  'All sentinels are unreachable',
];

/** Node's codes for a connection that failed or was cut. */
const connectionCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Whether a live store (Redis) call failed because the store is unreachable or failing over
 * (Redis restarting, a Sentinel promotion in flight), not because of the call: such a failure is
 * answered with a retryable 503 (`UNAVAILABLE`; a vote's `VOTE_NOT_RECORDED`), never INTERNAL
 * (issue 29). A script's own error (`ERR …`, `WRONGTYPE`) is not one: that is a defect.
 * Duck-typed, so it needs neither `@underdog/store` nor ioredis: `LiveStoreError` (name, `code`
 * the reply's first word), ioredis's `MaxRetriesPerRequestError`, a `StoreTimeoutError`.
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (error.name === 'LiveStoreError')
    return typeof code === 'string' && transientReplies.has(code);
  if (
    error.name === 'MaxRetriesPerRequestError' ||
    error.name === 'AbortError' ||
    error.name === 'StoreTimeoutError'
  ) {
    return true;
  }
  if (typeof code === 'string' && connectionCodes.has(code)) return true;
  return connectionMessages.some((message) => error.message.startsWith(message));
}
