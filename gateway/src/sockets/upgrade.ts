import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger, Registry } from '@underdog/kit';
import type { WebSocketServer } from 'ws';
import { addressKey, clientAddressOf } from '../client-address';
import type { PublicOrigins } from '../request-origins';
import {
  OpenSocketsPerAddress,
  evictedCounter,
  isSameOrigin,
  prefixKey,
  refusedCounter,
} from './admission';
import { FullEpisodes, WaitingRoom, type Guest } from './capacity';
import { answerClientError, refuse } from './client-errors';
import { closeAsFull } from './full-close';

export interface WebSocketEdgeOptions {
  /** The settings' `webSocket.maxPayloadBytes`, for every endpoint. */
  maxPayloadBytes: number;
  /** The settings' `webSocket.maxConnectionsPerAddress`: open sockets per client; 0 is no cap. */
  maxConnectionsPerAddress: number;
  /** The settings' `webSocket.capacity`: open sockets on this process, both endpoints; 0 is no cap. */
  capacity: number;
  /** The settings' `webSocket.fullRetrySeconds`: the N of `Server full; retry in N s`. */
  fullRetrySeconds: number;
  /** The settings' `webSocket.visitorShare`: the part of `capacity` visitors may hold. */
  visitorShare: number;
  /** The settings' `webSocket.maxConnectionsPerPrefix`: open sockets per /24 or /48; 0 is no cap. */
  maxConnectionsPerPrefix: number;
  /**
   * Whom the upgrade speaks for: `player` when its cookie names a session the auth service
   * knows. Asked only while there is a capacity; a lookup that fails must answer `visitor`.
   */
  guestOf(req: IncomingMessage): Promise<Guest>;
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
 * endpoints (`/graphql` and `/ws`) share one port; ws's own `path` option cannot, as each server
 * would refuse the others' upgrades.
 *
 * Before an upgrade is accepted it is admitted (`admission.ts`): an Origin that is not this app's
 * is refused with 403; one client address (see `clientAddressOf`; IPv6 by its /64) holds at most
 * `maxConnectionsPerAddress` open sockets on both endpoints together, and one network (IPv4 /24,
 * IPv6 /48) at most `maxConnectionsPerPrefix`; past either the upgrade is refused with 429.
 *
 * Then the waiting room (`capacity.ts`): the process holds at most `capacity` open sockets on
 * both endpoints together, of which visitors (no session: `guestOf`) at most `visitorShare`. A
 * socket with no place is accepted and closed at once by the capacity's close contract
 * (`full-close.ts`: 1013 `Server full; retry in N s`); a player arriving when the room is full
 * takes the oldest visitor's place, that socket closed the same way. One warning per episode of
 * refusals, one line when it ends; every refusal counts in `underdog_websocket_refused_total`,
 * every eviction in `underdog_websocket_evicted_total`.
 *
 * Every endpoint gets the same frame limit, `maxPayloadBytes` (the settings'
 * `webSocket.maxPayloadBytes`): ws closes a connection that sends a bigger message with 1009
 * before buffering it, whatever the endpoint's own options said (ws's default is 100 MiB).
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
  const perAddress = new OpenSocketsPerAddress(options.maxConnectionsPerAddress);
  const perPrefix = new OpenSocketsPerAddress(options.maxConnectionsPerPrefix);
  const refused = refusedCounter(options.registry);
  const room = new WaitingRoom(options, evictedCounter(options.registry));
  const full = new FullEpisodes(options, room, logger, refused);
  server.once('close', () => full.stop());

  const admit = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
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
      const clientAddress = clientAddressOf(req, options.trustProxy);
      const address = addressKey(clientAddress);
      if (!perAddress.acquire(address)) {
        if (perAddress.firstRefusal(address)) {
          logger.warn(
            { address, limit: options.maxConnectionsPerAddress },
            'websocket refused: too many connections from one address',
          );
        }
        refused.inc({ reason: 'address' });
        refuse(socket, 429, 'Too Many Requests');
        return;
      }
      const prefix = prefixKey(clientAddress);
      if (!perPrefix.acquire(prefix)) {
        perAddress.release(address);
        if (perPrefix.firstRefusal(prefix)) {
          logger.warn(
            { prefix, limit: options.maxConnectionsPerPrefix },
            'websocket refused: too many connections from one network',
          );
        }
        refused.inc({ reason: 'prefix' });
        refuse(socket, 429, 'Too Many Requests');
        return;
      }
      socket.once('close', () => {
        perAddress.release(address);
        perPrefix.release(prefix);
      });
      const guest: Guest = room.capped ? await options.guestOf(req) : 'player';
      // The client went while its session was looked up: its caps were released on close.
      if (socket.destroyed) return;
      const place = room.enter(guest);
      if (typeof place === 'string') {
        full.refused(place);
        target.handleUpgrade(req, socket, head, (ws) => {
          accepted = true;
          closeAsFull(ws, options.fullRetrySeconds);
        });
        return;
      }
      socket.once('close', () => room.leave(place));
      target.handleUpgrade(req, socket, head, (ws) => {
        accepted = true;
        room.seated(place, ws);
        if (!place.evicted) target.emit('connection', ws, req);
      });
    } catch (error) {
      logger.error({ err: error, accepted }, 'websocket upgrade failed');
      if (accepted) socket.destroy();
      else refuse(socket, 500, 'Internal Server Error');
    }
  };
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node takes its own error listener off the socket before 'upgrade': without this one, a
    // client resetting the connection now would be an uncaught exception.
    socket.on('error', (error) => logger.debug({ err: error }, 'websocket upgrade socket error'));
    void admit(req, socket, head);
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
