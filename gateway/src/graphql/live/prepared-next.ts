import type { FormattedExecutionResult } from 'graphql';
import type { WebSocket } from 'ws';

/**
 * graphql-ws serialises every `next` message for each socket: `JSON.stringify({ id, type,
 * payload })`, the whole result again for every subscriber, though the fan-out computed it once
 * (`LiveFeeds`) and only the subscription id differs between sockets. Node 20 has no
 * `JSON.rawJSON` to hand graphql-ws the payload's JSON as it is, so the payload goes through its
 * serialisation as a marker: `toJSON` hands the prepared JSON over and stands in a short marker
 * string, and the socket's `send` (wrapped by `sendPreparedPayloads`) puts the JSON in the
 * marker's place. graphql-ws stringifies and sends in one synchronous step, so the JSON handed
 * over is always the one of the message being sent.
 */
const marker = '\u0000prepared-payload';
const markerTail = `"payload":${JSON.stringify(marker)}}`;
let handedOver: string | undefined;

class PreparedPayload {
  constructor(private readonly json: string) {}

  toJSON(): string {
    handedOver = this.json;
    return marker;
  }
}

/** A `next` payload already serialised (`onNext`'s answer): sent as `json`, not stringified. */
export function preparedPayload(json: string): FormattedExecutionResult {
  return new PreparedPayload(json) as unknown as FormattedExecutionResult;
}

/** Lets `socket` send prepared payloads; call before graphql-ws takes the socket. */
export function sendPreparedPayloads(socket: WebSocket): void {
  const send = socket.send.bind(socket) as (data: unknown, ...rest: unknown[]) => void;
  socket.send = ((data: unknown, ...rest: unknown[]) => {
    if (handedOver !== undefined && typeof data === 'string' && data.endsWith(markerTail)) {
      const json = handedOver;
      handedOver = undefined;
      send(`${data.slice(0, data.length - markerTail.length)}"payload":${json}}`, ...rest);
      return;
    }
    send(data, ...rest);
  }) as WebSocket['send'];
}
