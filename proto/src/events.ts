import { randomUUID } from 'node:crypto';
import { toBinary, type DescMessage, type Message, type MessageShape } from '@bufbuild/protobuf';

/**
 * Kafka header names of the event envelope convention (see README.md). Every producer sets both,
 * so consumers can filter on the type without decoding and deduplicate on the id.
 */
export const EventHeader = {
  type: 'event-type',
  id: 'event-id',
} as const;

/** An event envelope: the message chosen in its `kind` oneof is the event. */
export interface EventEnvelope {
  readonly kind: { readonly case: string | undefined; readonly value?: Message | undefined };
}

/**
 * The `event-type` header value for an envelope: the full protobuf name of the chosen case, e.g.
 * `underdog.events.v1.TournamentLive`. Derived from the schema rather than written by hand, so
 * the header can never disagree with the payload.
 */
export function eventTypeOf(event: EventEnvelope): string {
  if (event.kind.value === undefined) {
    // An envelope without a case says nothing; publishing it would only confuse consumers.
    throw new Error('eventTypeOf: the event has no kind set');
  }
  return event.kind.value.$typeName;
}

/** A Kafka record as the bus publishes it: structurally `OutgoingMessage` of @underdog/bus. */
export interface EncodedEvent {
  key: string;
  value: Uint8Array;
  headers: Record<string, string>;
}

/**
 * Encodes an envelope with both convention headers, so every producer writes them the same way.
 * `id` defaults to a fresh UUID; pass a deterministic one when the same fact may be republished
 * (e.g. after a crash), so consumers can recognise the repeat.
 */
export function encodeEvent<Desc extends DescMessage>(
  schema: Desc,
  event: MessageShape<Desc> & EventEnvelope,
  options: { key: string; id?: string },
): EncodedEvent {
  return {
    key: options.key,
    value: toBinary(schema, event),
    headers: {
      [EventHeader.type]: eventTypeOf(event),
      [EventHeader.id]: options.id ?? randomUUID(),
    },
  };
}
