import { EventEmitter } from 'node:events';
import type { CoreSocket } from '../src/realtime/core/channels';

/** A `ws` WebSocket as the core uses it: its TCP writes are recorded. */
export class FakeSocket extends EventEmitter implements CoreSocket {
  readyState = 1;
  bufferedAmount = 0;
  pings = 0;
  terminated = false;
  readonly written: Buffer[] = [];
  readonly _socket = { write: (data: Buffer) => this.written.push(data) > 0 };

  ping(): void {
    this.pings += 1;
  }

  terminate(): void {
    this.terminated = true;
    this.readyState = 3;
    this.emit('close');
  }

  send(data: string): void {
    this.written.push(Buffer.from(data));
  }

  /** The text messages written so far, unframed. */
  texts(): string[] {
    return this.written.flatMap(unframe);
  }
}

/** Reads unmasked text frames (RFC 6455 §5.2) back into their texts. */
export function unframe(wire: Buffer): string[] {
  const texts: string[] = [];
  let offset = 0;
  while (offset < wire.length) {
    if (wire[offset] !== 0x81) throw new Error(`not a final text frame at ${offset}`);
    let length = wire[offset + 1]! & 0x7f;
    offset += 2;
    if (length === 126) {
      length = wire.readUInt16BE(offset);
      offset += 2;
    } else if (length === 127) {
      length = wire.readUInt32BE(offset) * 2 ** 32 + wire.readUInt32BE(offset + 4);
      offset += 8;
    }
    texts.push(wire.subarray(offset, offset + length).toString('utf8'));
    offset += length;
  }
  return texts;
}
