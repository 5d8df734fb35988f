import { SERVER_FULL_CLOSE_CODE, serverFullReason } from '@underdog/rules';
import type { WebSocket } from 'ws';

/**
 * The capacity's close contract (`@underdog/rules`, docs/api-ws.md): a socket the gateway has
 * no room for is accepted, with the endpoint's own subprotocol, and closed at once with 1013
 * "Try Again Later" and the reason `Server full; retry in N s`. A browser cannot read the status
 * of a refused upgrade, but it can read a close code, and graphql-ws's client retries on 1013.
 */

/** How long a socket closed as full may take to answer the close before it is cut. */
const fullCloseGraceMs = 2_000;

/**
 * Closes a socket the gateway has no room for: 1013 with the retry hint, and cut if the client
 * does not answer the close soon (ws would wait 30 s), so a flood of refused clients holds no
 * sockets.
 */
export function closeAsFull(ws: WebSocket, retrySeconds: number): void {
  ws.close(SERVER_FULL_CLOSE_CODE, serverFullReason(retrySeconds));
  const cut = setTimeout(() => ws.terminate(), fullCloseGraceMs);
  cut.unref();
  ws.once('close', () => clearTimeout(cut));
}
