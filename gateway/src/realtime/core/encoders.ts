import { textFrameHeaderLength, textFrames, writeTextFrameHeader, type Encoded } from './frames';
import type { ProtocolEncoder } from './channels';

/**
 * `/ws`: every socket of a channel gets the same bytes, framed once per event
 * (`encodedMessages`); a socket's messages of one moment (its snapshot and what was held) go in
 * one write.
 */
export const wsEncoder: ProtocolEncoder = {
  wire(_subscriber, messages) {
    const wires = messages.map(wireOf);
    return wires.length === 1 ? (wires[0] as Buffer) : Buffer.concat(wires);
  },
  texts(_subscriber, messages) {
    return messages.flatMap((message) => message.payloads.map((payload) => payload.toString()));
  },
};

function wireOf(message: Encoded): Buffer {
  return message.wire ?? textFrames(message.payloads);
}

const closingBrace = 0x7d;

/**
 * graphql-ws: a channel's payload (an operation's execution result) is serialised once per
 * event; each subscriber's `next` message is that JSON in its own envelope,
 * `{"id":"…","type":"next","payload":<json>}` (graphql-ws's `stringifyMessage` gives the same
 * text), framed here in one buffer per socket: only the id and the frame header are written per
 * socket, the payload is copied, never serialised again.
 */
export const graphqlWsEncoder: ProtocolEncoder = {
  wire(subscriber, messages) {
    const envelope = nextEnvelope(subscriber.id ?? '');
    const envelopeBytes = Buffer.byteLength(envelope);
    let size = 0;
    for (const message of messages) {
      for (const payload of message.payloads) {
        const length = envelopeBytes + payload.length + 1;
        size += textFrameHeaderLength(length) + length;
      }
    }
    const wire = Buffer.allocUnsafe(size);
    let offset = 0;
    for (const message of messages) {
      for (const payload of message.payloads) {
        offset = writeTextFrameHeader(wire, offset, envelopeBytes + payload.length + 1);
        offset += wire.write(envelope, offset);
        offset += payload.copy(wire, offset);
        wire[offset] = closingBrace;
        offset += 1;
      }
    }
    return wire;
  },
  texts(subscriber, messages) {
    const envelope = nextEnvelope(subscriber.id ?? '');
    return messages.flatMap((message) =>
      message.payloads.map((payload) => `${envelope}${payload.toString()}}`),
    );
  },
};

/**
 * A graphql-ws subscription's envelope: its `next` message up to the payload. Made at each
 * write, not kept per subscriber: a few dozen bytes of work against that much memory per
 * idle socket.
 */
export function nextEnvelope(id: string): string {
  // Ids are UUIDs or counters: written as they are; anything else is escaped as JSON.
  const quoted = plainId.test(id) ? `"${id}"` : JSON.stringify(id);
  return `{"id":${quoted},"type":"next","payload":`;
}

const plainId = /^[\w.:-]*$/;
