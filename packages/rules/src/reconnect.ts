/**
 * The shipped client's socket policy, defined once: when a socket closes, how long the web app
 * waits before it opens one again (`web/src/app/apollo.ts`), and what a full gateway's close
 * means (`gateway/src/sockets/full-close.ts` writes it). The load driver and the fault suite's players
 * wait the same, so what they measure and prove is what a player's browser does.
 */

/** Spec §9: a closed socket reconnects after 3 s (and graphql-ws resubscribes). */
export const SOCKET_RECONNECT_MS = 3_000;
/**
 * The ordinary reconnect waits 3 s ± 1 s: when a gateway stops, its thousands of players come
 * back spread over two seconds instead of in one burst on the same millisecond (issue 25's
 * reconnect storm).
 */
export const RECONNECT_JITTER_MS = 1_000;

/** The wait before reconnecting after an ordinary close (`random` in [0, 1)). */
export function reconnectDelayMs(random: () => number = Math.random): number {
  return Math.round(SOCKET_RECONNECT_MS + RECONNECT_JITTER_MS * (2 * random() - 1));
}

/**
 * The gateway's answer when it is at capacity (docs/api-ws.md): the socket opens and is closed
 * at once with 1013 "Try Again Later" and the reason `Server full; retry in N s`.
 */
export const SERVER_FULL_CLOSE_CODE = 1013;
/** N when a 1013 close gives none (the gateway's default, WEBSOCKET_FULL_RETRY_SECONDS). */
export const DEFAULT_FULL_RETRY_SECONDS = 10;
/** The waiting room retries after N s ± 30%, so the players turned away together do not return together. */
export const FULL_RETRY_JITTER = 0.3;

/** The reason of a full gateway's 1013 close, asking the client to come back in `seconds`. */
export function serverFullReason(seconds: number): string {
  return `Server full; retry in ${seconds} s`;
}

/** The N seconds a 1013 close reason asks for (`retry in N s`); the default when it names none. */
export function fullRetrySeconds(reason: string): number {
  const hinted = /retry in (\d+(?:\.\d+)?) ?s/i.exec(reason);
  return hinted ? Number(hinted[1]) : DEFAULT_FULL_RETRY_SECONDS;
}

/**
 * How long to wait after a close: for a 1013 from a full gateway, its N seconds with jitter
 * (`random` in [0, 1)); undefined for any other close (the ordinary reconnect).
 */
export function fullRetryDelayMs(
  event: unknown,
  random: () => number = Math.random,
): number | undefined {
  const close = event as { code?: unknown; reason?: unknown } | null | undefined;
  if (close?.code !== SERVER_FULL_CLOSE_CODE) return undefined;
  const seconds = fullRetrySeconds(typeof close.reason === 'string' ? close.reason : '');
  return Math.round(seconds * 1000 * (1 + FULL_RETRY_JITTER * (2 * random() - 1)));
}
