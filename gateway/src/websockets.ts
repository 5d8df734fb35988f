import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger, Registry } from '@underdog/kit';
import { SERVER_FULL_CLOSE_CODE, serverFullReason } from '@underdog/rules';
import { Counter } from 'prom-client';
import type { WebSocket, WebSocketServer } from 'ws';
import { addressKey, clientAddressOf } from './client-address';
import type { PublicOrigins } from './request-origins';

export interface WebSocketEdgeOptions {
  /** The settings' `webSocket.maxPayloadBytes`, for every endpoint. */
  maxPayloadBytes: number;
  /** The settings' `webSocket.maxConnectionsPerAddress`: open sockets per client; 0 is no cap. */
  maxConnectionsPerAddress: number;
  /** The settings' `webSocket.capacity`: open sockets on this process, both endpoints; 0 is no cap. */
  capacity: number;
  /** The settings' `webSocket.fullRetrySeconds`: the N of `Server full; retry in N s`. */
  fullRetrySeconds: number;
  /** The gateway's metrics registry, for `underdog_websocket_refused_total`. */
  registry: Registry;
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
 * The process holds at most `capacity` open sockets on both endpoints together. Past it the
 * upgrade is accepted (with the endpoint's own subprotocol) and the socket closed at once with
 * 1013 "Try Again Later" and the reason `Server full; retry in N s`: a browser cannot read the
 * status of a refused upgrade, but it can read a close code, and graphql-ws's client retries on
 * 1013. The sockets already open are not touched. One warning per episode of refusals, one line
 * when it ends; every refusal counts in `underdog_websocket_refused_total`.
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
  const refused = refusedCounter(options.registry);
  const full = new FullEpisodes(options, logger, refused);
  server.once('close', () => full.stop());
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
        refused.inc({ reason: 'address' });
        refuse(socket, 429, 'Too Many Requests');
        return;
      }
      socket.once('close', () => open.release(address));
      if (!full.acquire()) {
        full.refused();
        target.handleUpgrade(req, socket, head, (ws) => {
          accepted = true;
          closeAsFull(ws, options.fullRetrySeconds);
        });
        return;
      }
      socket.once('close', () => full.release());
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

/** How long a socket closed as full may take to answer the close before it is cut. */
const fullCloseGraceMs = 2_000;

/**
 * Closes a socket just accepted past the capacity: 1013 with the retry hint, and cut if the
 * client does not answer the close soon (ws would wait 30 s), so a flood of refused clients
 * holds no sockets.
 */
function closeAsFull(ws: WebSocket, retrySeconds: number): void {
  ws.close(SERVER_FULL_CLOSE_CODE, serverFullReason(retrySeconds));
  const cut = setTimeout(() => ws.terminate(), fullCloseGraceMs);
  cut.unref();
  ws.once('close', () => clearTimeout(cut));
}

function refusedCounter(registry: Registry): Counter<'reason'> {
  const name = 'underdog_websocket_refused_total';
  const existing = registry.getSingleMetric(name) as Counter<'reason'> | undefined;
  if (existing) return existing;
  const counter = new Counter({
    name,
    help: 'WebSocket upgrades refused, by reason (capacity: closed 1013, the process full; address: 429, the per-address cap)',
    labelNames: ['reason'],
    registers: [registry],
  });
  // Both series exist from the start, so a dashboard's rate() sees the first refusal.
  for (const reason of ['capacity', 'address']) counter.inc({ reason }, 0);
  return counter;
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

/**
 * The process's open sockets against its capacity, and the episodes of refusals: one begins with
 * the first refusal (a warning) and ends once none came for twice the retry time, which every
 * waiting client's retry (N s ± its jitter) falls within (one info line with the count).
 */
class FullEpisodes {
  private open = 0;
  private episode: { since: number; refused: number; quiet: NodeJS.Timeout } | undefined;
  private readonly capacity: number;
  private readonly retrySeconds: number;

  constructor(
    options: { capacity: number; fullRetrySeconds: number },
    private readonly logger: Logger,
    private readonly counter: Counter<'reason'>,
  ) {
    this.capacity = options.capacity;
    this.retrySeconds = options.fullRetrySeconds;
  }

  acquire(): boolean {
    if (this.capacity > 0 && this.open >= this.capacity) return false;
    this.open += 1;
    return true;
  }

  release(): void {
    this.open = Math.max(0, this.open - 1);
  }

  refused(): void {
    this.counter.inc({ reason: 'capacity' });
    if (this.episode) {
      this.episode.refused += 1;
      this.episode.quiet.refresh();
      return;
    }
    const quiet = setTimeout(() => this.end(), 2 * this.retrySeconds * 1000);
    quiet.unref();
    // Raw time is fine here: the episode's length is only logged, no rule depends on it.
    this.episode = { since: Date.now(), refused: 1, quiet };
    this.logger.warn(
      { capacity: this.capacity, open: this.open, retrySeconds: this.retrySeconds },
      'websocket refused: gateway full',
    );
  }

  stop(): void {
    if (this.episode) clearTimeout(this.episode.quiet);
    this.episode = undefined;
  }

  private end(): void {
    const episode = this.episode;
    if (!episode) return;
    this.episode = undefined;
    this.logger.info(
      {
        capacity: this.capacity,
        open: this.open,
        refused: episode.refused,
        durationMs: Date.now() - episode.since,
      },
      'websocket refusals ended',
    );
  }
}
