import type { Logger } from '@underdog/kit';
import {
  CloseCode,
  handleProtocols,
  makeServer,
  type ConnectionInitMessage,
  type ServerOptions,
} from 'graphql-ws';
import type { Extra } from 'graphql-ws/use/ws';
import type { WebSocketServer } from 'ws';

/** graphql-ws's keep-alive: a ping every 12 s, terminated if the pong has not come by the next. */
const keepAliveMs = 12_000;

/**
 * A message of the protocol that only a server sends (`next`, `error`, `connection_ack`):
 * graphql-ws throws on it, which is the client's mistake, not the server's.
 */
const serverOnlyMessage = /^Unexpected message of type (\w+) received$/;

/**
 * graphql-ws on a `noServer` ws server: graphql-ws's own `useServer` (`graphql-ws/use/ws`),
 * with two differences. A client that breaks the protocol by sending a server's message is
 * closed with 4400 (Bad request) naming it, where `useServer` said 4500 "Internal server
 * error"; and everything is logged as one structured line on the gateway's logger, never with
 * `console.error`: protocol misuse and socket errors (a frame over the limit, bad UTF-8) at
 * info and debug, a real failure while handling a message at error, closed with 4500
 * "Internal server error" (no details to the client).
 */
export function serveGraphQLWs<P extends ConnectionInitMessage['payload']>(
  options: ServerOptions<P, Extra>,
  webSocket: WebSocketServer,
  logger: Logger,
): { dispose(): Promise<void> } {
  const server = makeServer(options);
  webSocket.options.handleProtocols = handleProtocols;
  webSocket.on('error', (error) => logger.error({ err: error }, 'graphql-ws server error'));
  webSocket.on('connection', (socket, request) => {
    // ws has already closed the socket with the fitting code (1009, 1007, 1002) when it emits.
    socket.on('error', (error: Error & { code?: string }) =>
      logger.debug({ code: error.code, reason: error.message }, 'graphql-ws socket error'),
    );
    let pongWait: NodeJS.Timeout | undefined;
    const ping = setInterval(() => {
      if (socket.readyState !== socket.OPEN) return;
      pongWait = setTimeout(() => socket.terminate(), keepAliveMs);
      socket.once('pong', () => clearTimeout(pongWait));
      socket.ping();
    }, keepAliveMs);
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            if (socket.readyState !== socket.OPEN) {
              resolve();
              return;
            }
            socket.send(data, (error) => (error ? reject(error) : resolve()));
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', (data: Buffer) => {
            handle(data.toString()).catch((error: unknown) => {
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
          }),
      },
      { socket, request },
    );
    socket.once('close', (code, reason) => {
      clearTimeout(pongWait);
      clearInterval(ping);
      closed(code, reason.toString()).catch((error: unknown) =>
        logger.error({ err: error }, 'graphql-ws close failed'),
      );
    });
  });
  return {
    dispose: async () => {
      for (const client of webSocket.clients) client.close(1001, 'Going away');
      webSocket.removeAllListeners();
      await new Promise<void>((resolve, reject) =>
        webSocket.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
