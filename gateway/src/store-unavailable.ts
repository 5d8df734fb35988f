import { LiveStoreError } from '@underdog/store';

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
 * A live store call that got no answer in time: its connection died with the command sent (ioredis
 * sends it again after reconnecting), or the store is stalled. The call may still run later.
 */
export class StoreTimeoutError extends Error {
  override readonly name = 'StoreTimeoutError';
}

/** The call, or a `StoreTimeoutError` after `ms`. */
export async function withStoreTimeout<T>(call: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StoreTimeoutError(`${what}: no answer from the live store in ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a live store call failed because the store is unreachable or failing over (Redis
 * restarting, a Sentinel promotion in flight), not because of the call: the vote path answers
 * these with a retryable 503 (`VOTE_NOT_RECORDED`), never INTERNAL (issue 29). A script's own
 * error (`ERR …`, `WRONGTYPE`) is not one: that is a defect, answered INTERNAL.
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (error instanceof LiveStoreError) return transientReplies.has(error.code);
  if (!(error instanceof Error)) return false;
  if (error instanceof StoreTimeoutError) return true;
  if (error.name === 'MaxRetriesPerRequestError' || error.name === 'AbortError') return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && connectionCodes.has(code)) return true;
  return connectionMessages.some((message) => error.message.startsWith(message));
}
