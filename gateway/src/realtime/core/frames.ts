import type { Duplex } from 'node:stream';

/**
 * One event's message(s) for one channel of subscribers, serialised once for all of them
 * (`RealtimeCore`). What each socket then gets is the protocol encoder's business: the same
 * frames as they are (`/ws`), or each payload in the subscriber's own envelope (graphql-ws).
 */
export interface Encoded {
  /** Each message's JSON, in order. */
  payloads: Buffer[];
  /**
   * The messages' text frames, one after the other, when every socket gets the same bytes
   * (`/ws`): framed once for all of them.
   */
  wire?: Buffer;
}

/** Messages serialised (and framed) once: the same bytes for every socket they go to. */
export function encodedMessages(...messages: readonly unknown[]): Encoded {
  const payloads = messages.map((message) => Buffer.from(JSON.stringify(message)));
  return { payloads, wire: textFrames(payloads) };
}

const FIN_TEXT = 0x81;

/** The header of one unmasked, final text frame of `length` bytes (RFC 6455 §5.2). */
export function textFrameHeaderLength(length: number): number {
  if (length < 126) return 2;
  return length < 65_536 ? 4 : 10;
}

/** Writes that header at `offset` of `target`; returns the offset after it. */
export function writeTextFrameHeader(target: Buffer, offset: number, length: number): number {
  target[offset] = FIN_TEXT;
  if (length < 126) {
    target[offset + 1] = length;
    return offset + 2;
  }
  if (length < 65_536) {
    target[offset + 1] = 126;
    target.writeUInt16BE(length, offset + 2);
    return offset + 4;
  }
  target[offset + 1] = 127;
  target.writeUInt32BE(Math.floor(length / 2 ** 32), offset + 2);
  target.writeUInt32BE(length >>> 0, offset + 6);
  return offset + 10;
}

/**
 * Text frames of these payloads, one after the other, in one buffer. A server's frames are not
 * masked (RFC 6455 §5.1), so they are the same bytes for every socket: `ws` would frame each
 * `send` again (its header, its own write), a third of a broadcast's CPU on its own
 * (docs/benchmarks.md, the sixth pass).
 */
export function textFrames(payloads: readonly Buffer[]): Buffer {
  let size = 0;
  for (const payload of payloads) size += textFrameHeaderLength(payload.length) + payload.length;
  const wire = Buffer.allocUnsafe(size);
  let offset = 0;
  for (const payload of payloads) {
    offset = writeTextFrameHeader(wire, offset, payload.length);
    offset += payload.copy(wire, offset);
  }
  return wire;
}

/**
 * The TCP socket under a `ws` WebSocket, which keeps it in a private field, to write frames
 * to. Frames written there stay in order with the ones ws writes itself (pings, pongs, the
 * close frame, graphql-ws's own messages): ws writes each of its frames synchronously in one
 * call, and never queues one, since this server does not compress (`perMessageDeflate: false`)
 * and sends no Blobs. Undefined if a future ws drops the field: then ws sends each message
 * itself.
 */
export function tcpSocketOf(socket: object): Pick<Duplex, 'write' | 'cork' | 'uncork'> | undefined {
  const tcp = (socket as { _socket?: Partial<Duplex> })._socket;
  return typeof tcp?.write === 'function' ? (tcp as Duplex) : undefined;
}
