import type { Duplex } from 'node:stream';
import type { Logger } from '@underdog/kit';

/**
 * How the edge answers what never becomes a socket: an upgrade it refuses (a status line, then
 * closed) and a request Node's HTTP parser refused ('clientError').
 */

/** Answers a refused upgrade with `status` and closes the connection. */
export function refuse(socket: Duplex, status: number, text: string): void {
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
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  logger: Logger,
): void {
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
