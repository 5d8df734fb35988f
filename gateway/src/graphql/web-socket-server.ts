import type { IncomingMessage } from 'node:http';
import { systemClock, type Clock, type Logger } from '@underdog/kit';
import {
  CloseCode,
  handleProtocols,
  makeServer,
  type ConnectionInitMessage,
  type ServerOptions,
  type WebSocket as GraphQLWsSocket,
} from 'graphql-ws';
import type { WebSocket, WebSocketServer } from 'ws';
import { tcpSocketOf } from '../realtime/core/frames';
import { FirstMessageDeadline } from '../sockets/first-message';

/**
 * A message of the protocol that only a server sends (`next`, `error`, `connection_ack`):
 * graphql-ws throws on it, which is the client's mistake, not the server's.
 */
const serverOnlyMessage = /^Unexpected message of type (\w+) received$/;

/** How long a socket may take to send `connection_init` by default (graphql-ws's): then 4408. */
const defaultConnectionInitWaitMs = 3_000;

/** What the gateway keeps per graphql-ws socket: graphql-ws's `extra` (`ctx.extra`). */
export interface SocketExtra {
  readonly socket: WebSocket;
}

export interface GraphQLWsSocketOptions<E extends SocketExtra> {
  /** The socket's `extra`, made once when it opens (no request kept unless it keeps it). */
  extra(socket: WebSocket, request: IncomingMessage): E;
  /** False: the message is refused and the socket closed (the client's message budget). */
  admit?(extra: E): boolean;
  /** The gateway's clock: the connection_init deadline is measured by it (default: the system's). */
  clock?: Clock;
  /**
   * How long a socket may take to send `connection_init` (WEBSOCKET_FIRST_MESSAGE_TIMEOUT_MS);
   * then it is closed with 4408, as graphql-ws's own `connectionInitWaitTimeout` would.
   */
  connectionInitWaitMs?: number;
}

/**
 * graphql-ws's side of one socket, its methods on the prototype: no closures per socket
 * besides the message handler graphql-ws hands over.
 */
class SocketAdapter<E extends SocketExtra> implements GraphQLWsSocket {
  /** Its TCP stream is corked until the end of this tick (see `send`). */
  private corked = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly extra: E,
    private readonly sockets: GraphQLWsSocketOptions<E>,
    private readonly logger: Logger,
  ) {}

  get protocol(): string {
    return this.socket.protocol;
  }

  send(data: string): void {
    // Written at once (ws queues nothing here): a failed write shows as the socket's error.
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.cork();
    this.socket.send(data);
  }

  /**
   * An answer's `next` and `complete` (a `castVote`'s) leave in one write: graphql-ws sends
   * them a few promise reactions apart, so the TCP stream is corked at the first and uncorked
   * once the tick's reactions have run (`process.nextTick` runs after them). The frames and
   * their order are unchanged; anything else written meanwhile (the real-time core's frames)
   * joins the same write, in order.
   */
  private cork(): void {
    if (this.corked) return;
    const tcp = tcpSocketOf(this.socket);
    if (typeof tcp?.cork !== 'function') return;
    this.corked = true;
    tcp.cork();
    process.nextTick(() => {
      this.corked = false;
      tcp.uncork();
    });
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }

  onMessage(handle: (data: string) => Promise<void>): void {
    const { socket, logger } = this;
    socket.on('message', (data: Buffer) => {
      if (this.sockets.admit && !this.sockets.admit(this.extra)) {
        // The same budget as a /ws socket: a flood is closed with 1008 (graphql-ws has none).
        socket.close(1008, 'Too many messages');
        return;
      }
      handle(parsedOrText(data.toString())).catch((error: unknown) => {
        const misuse = error instanceof Error ? serverOnlyMessage.exec(error.message) : null;
        if (misuse) {
          logger.info(
            { messageType: misuse[1], closeCode: CloseCode.BadRequest },
            'graphql-ws protocol misuse',
          );
          socket.close(CloseCode.BadRequest, misuse[0]);
          return;
        }
        logger.error(
          { err: error, closeCode: CloseCode.InternalServerError },
          'graphql-ws message failed',
        );
        socket.close(CloseCode.InternalServerError, 'Internal server error');
      });
    });
  }
}

/**
 * The message parsed here, for graphql-ws to take as it is (its `parseMessage` validates an
 * object and parses only a string): graphql-ws's handler of a `subscribe` stays suspended as
 * long as the subscription runs and keeps its argument, so the raw text (the whole document,
 * 2.7 KB for the app's `GameEvents`) would stay in memory per socket; the parsed message's
 * query is shared between sockets instead (server.ts, `onSubscribe`). A text that is not JSON
 * (or not an object) goes as it is, for graphql-ws to refuse (4400).
 */
function parsedOrText(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    // Anything but an object goes as the text it was, for graphql-ws to refuse.
    return typeof parsed === 'object' && parsed !== null ? (parsed as unknown as string) : text;
  } catch {
    return text;
  }
}

/**
 * graphql-ws on a `noServer` ws server: graphql-ws's own `makeServer` does the protocol
 * (connection_init and its ack, subscribe and complete, errors, ping and pong), as its
 * `useServer` (`graphql-ws/use/ws`) would run it, with these differences. A client that breaks
 * the protocol by sending a server's message is closed with 4400 (Bad request) naming it,
 * where `useServer` said 4500 "Internal server error"; everything is logged as one structured
 * line on the gateway's logger, never with `console.error`: protocol misuse and socket errors
 * (a frame over the limit, bad UTF-8) at info and debug, a real failure while handling a
 * message at error, closed with 4500 "Internal server error" (no details to the client). There
 * is no timer per socket: the real-time core pings every socket of the gateway on one paced
 * heartbeat (`RealtimeCore.beat`), and one sweep (`FirstMessageDeadline`) closes the sockets
 * that sent no `connection_init` within `connectionInitWaitMs` (4408, as graphql-ws's own
 * `connectionInitWaitTimeout` would). The `extra` is the
 * gateway's own per-socket record, not the upgrade request.
 */
export function serveGraphQLWs<P extends ConnectionInitMessage['payload'], E extends SocketExtra>(
  options: ServerOptions<P, E>,
  webSocket: WebSocketServer,
  logger: Logger,
  sockets: GraphQLWsSocketOptions<E>,
): { dispose(): Promise<void> } {
  // Sockets that have not sent connection_init yet.
  const awaitingInit = new FirstMessageDeadline(
    sockets.connectionInitWaitMs ?? defaultConnectionInitWaitMs,
    (socket) =>
      socket.close(CloseCode.ConnectionInitialisationTimeout, 'Connection initialisation timeout'),
    sockets.clock ?? systemClock,
  );
  const server = makeServer<P, E>({
    ...options,
    // One sweep for every socket (below), not graphql-ws's timer per socket, which its close
    // handler keeps for the socket's whole life.
    connectionInitWaitTimeout: Number.POSITIVE_INFINITY,
    onConnect: (ctx) => {
      awaitingInit.met(ctx.extra.socket);
      return options.onConnect?.(ctx);
    },
  });
  webSocket.options.handleProtocols = handleProtocols;
  webSocket.on('error', (error) => logger.error({ err: error }, 'graphql-ws server error'));
  // ws has already closed the socket with the fitting code (1009, 1007, 1002) when it emits.
  const onSocketError = (error: Error & { code?: string }) =>
    logger.debug({ code: error.code, reason: error.message }, 'graphql-ws socket error');
  webSocket.on('connection', (socket, request) => {
    socket.on('error', onSocketError);
    awaitingInit.watch(socket);
    const extra = sockets.extra(socket, request);
    const closed = server.opened(new SocketAdapter(socket, extra, sockets, logger), extra);
    socket.once('close', (code, reason) => {
      closed(code, reason.toString()).catch((error: unknown) =>
        logger.error({ err: error }, 'graphql-ws close failed'),
      );
    });
  });
  return {
    dispose: async () => {
      awaitingInit.stop();
      for (const client of webSocket.clients) client.close(1001, 'Going away');
      webSocket.removeAllListeners();
      await new Promise<void>((resolve, reject) =>
        webSocket.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
