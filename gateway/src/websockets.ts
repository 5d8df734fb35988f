import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '@underdog/kit';
import type { WebSocketServer } from 'ws';
import { addressKey, clientAddressOf } from './client-address';
import type { PublicOrigins } from './request-origins';

export interface WebSocketEdgeOptions {
  /** The settings' `webSocket.maxPayloadBytes`, for every endpoint. */
  maxPayloadBytes: number;
  /** The settings' `webSocket.maxConnectionsPerAddress`: open sockets per client; 0 is no cap. */
  maxConnectionsPerAddress: number;
  /** Proxies in front whose `X-Forwarded-For` is believed (TRUST_PROXY), as for rate limits. */
  trustProxy: number;
  /** The pages that may open a socket (PUBLIC_ORIGINS, else the request's own origin). */
  publicOrigins: PublicOrigins;
  logger: Logger;
}

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
 *
 * One client address (see `clientAddressOf`; IPv6 by its /64) holds at most
 * `maxConnectionsPerAddress` open sockets on both endpoints together; past it the upgrade is
 * refused with 429 before anything is accepted.
 *
 * Nothing a client sends can make these listeners throw: an upgrade whose URL cannot be parsed
 * is 400, and so is a request Node's parser refuses ('clientError'); anything unexpected is
 * logged as one line and answered 500, never left to take the process down.
 */
export function attachWebSockets(
  server: Server,
  routes: Record<string, WebSocketServer>,
  options: WebSocketEdgeOptions,
): void {
  for (const target of Object.values(routes)) {
    target.options.maxPayload = Math.min(
      target.options.maxPayload ?? options.maxPayloadBytes,
      options.maxPayloadBytes,
    );
  }
  const logger = options.logger.child({ component: 'websockets' });
  const open = new OpenSocketsPerAddress(options.maxConnectionsPerAddress);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node takes its own error listener off the socket before 'upgrade': without this one, a
    // client resetting the connection now would be an uncaught exception.
    socket.on('error', (error) => logger.debug({ err: error }, 'websocket upgrade socket error'));
    let accepted = false;
    try {
      const path = pathOf(req.url);
      if (path === undefined) {
        refuse(socket, 400, 'Bad Request');
        return;
      }
      const target = routes[path];
      if (!target) {
        refuse(socket, 404, 'Not Found');
        return;
      }
      if (!isSameOrigin(req, options.publicOrigins)) {
        refuse(socket, 403, 'Forbidden');
        return;
      }
      const address = addressKey(clientAddressOf(req, options.trustProxy));
      if (!open.acquire(address)) {
        if (open.firstRefusal(address)) {
          logger.warn(
            { address, limit: options.maxConnectionsPerAddress },
            'websocket refused: too many connections from one address',
          );
        }
        refuse(socket, 429, 'Too Many Requests');
        return;
      }
      socket.once('close', () => open.release(address));
      target.handleUpgrade(req, socket, head, (ws) => {
        accepted = true;
        target.emit('connection', ws, req);
      });
    } catch (error) {
      logger.error({ err: error, accepted }, 'websocket upgrade failed');
      if (accepted) socket.destroy();
      else refuse(socket, 500, 'Internal Server Error');
    }
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    answerClientError(error, socket, logger);
  });
}

/** The path of a request target, or undefined when it is not a URL at all (`//[`, `//%zz/`). */
function pathOf(url: string | undefined): string | undefined {
  try {
    return new URL(url ?? '/', 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

/**
 * Whether the upgrade comes from a page of this app: its Origin, scheme, host and port, is one
 * of the public origins (see `PublicOrigins`), so a page served over plain http, or from another
 * port of the same host, cannot open a socket that carries the player's cookie.
 */
function isSameOrigin(req: IncomingMessage, publicOrigins: PublicOrigins): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true; // not a browser: it has no ambient cookies to abuse
  return publicOrigins.accepts(origin, req);
}

function refuse(socket: Duplex, status: number, text: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // Destroyed once written: a client that never closes its end cannot keep the socket.
  socket.once('finish', () => socket.destroy());
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

const clientErrorAnswers: Record<string, string> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/**
 * A request Node's HTTP parser refused (or that timed out before it was complete): answered as
 * Node would (400, 431, 408) unless a response is already under way, then closed. Such requests
 * come from broken or hostile clients: one debug line each, without the raw bytes.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, logger: Logger): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  logger.debug(
    { code: error.code, reason: (error as { reason?: string }).reason },
    'malformed request',
  );
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const answer = clientErrorAnswers[error.code ?? ''] ?? '400 Bad Request';
  socket.once('finish', () => socket.destroy());
  socket.end(`HTTP/1.1 ${answer}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * Open sockets per client address, for the cap. An address's entry lives while it has sockets,
 * so the map is as big as the open connections at most.
 */
class OpenSocketsPerAddress {
  private readonly counts = new Map<string, number>();
  /** Addresses refused since they were last below the cap: logged once per episode. */
  private readonly refused = new Set<string>();

  constructor(private readonly limit: number) {}

  acquire(address: string): boolean {
    const count = this.counts.get(address) ?? 0;
    if (this.limit > 0 && count >= this.limit) return false;
    this.counts.set(address, count + 1);
    return true;
  }

  release(address: string): void {
    const count = (this.counts.get(address) ?? 1) - 1;
    if (count <= 0) this.counts.delete(address);
    else this.counts.set(address, count);
    this.refused.delete(address);
  }

  firstRefusal(address: string): boolean {
    if (this.refused.has(address)) return false;
    this.refused.add(address);
    return true;
  }
}
