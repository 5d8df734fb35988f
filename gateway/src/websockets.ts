import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';

/**
 * Routes the HTTP server's WebSocket upgrades by path to `noServer` WebSocket servers, so several
 * endpoints (`/graphql` now, `/ws` later) can share one port; ws's own `path` option cannot, as
 * each server would refuse the others' upgrades.
 *
 * A browser always sends Origin on a WebSocket handshake and the same-origin policy does not
 * apply to WebSockets, so an upgrade whose Origin is not this host is refused: another site's
 * page must not open a socket carrying the player's session cookie.
 *
 * Every endpoint gets the same frame limit, `maxPayloadBytes` (the settings'
 * `webSocket.maxPayloadBytes`): ws closes a connection that sends a bigger message with 1009
 * before buffering it, whatever the endpoint's own options said (ws's default is 100 MiB).
 */
export function attachWebSockets(
  server: Server,
  routes: Record<string, WebSocketServer>,
  limits: { maxPayloadBytes: number },
): void {
  for (const target of Object.values(routes)) {
    target.options.maxPayload = Math.min(
      target.options.maxPayload ?? limits.maxPayloadBytes,
      limits.maxPayloadBytes,
    );
  }
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const target = routes[path];
    if (!target) {
      refuse(socket, 404, 'Not Found');
      return;
    }
    if (!isSameOrigin(req)) {
      refuse(socket, 403, 'Forbidden');
      return;
    }
    target.handleUpgrade(req, socket, head, (ws) => target.emit('connection', ws, req));
  });
}

function isSameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true; // not a browser: it has no ambient cookies to abuse
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
