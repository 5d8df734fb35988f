import type { BusMessage, EventBus, OutgoingMessage } from './port';

/**
 * The headers a parked message carries beside its own: why it was parked and where it came from,
 * so an operator can read it, fix what produced it and publish it again to its topic.
 */
export const DEAD_LETTER_HEADERS = {
  reason: 'dead-letter-reason',
  detail: 'dead-letter-detail',
  topic: 'dead-letter-topic',
  partition: 'dead-letter-partition',
  offset: 'dead-letter-offset',
} as const;

/** A message a consumer cannot process, ever, and why. */
export interface Poison {
  message: BusMessage;
  /** A short, fixed word (a metric label): `unreadable`, `invalid`, `script_error`. */
  reason: string;
  /** What was wrong, for a person (cut to 500 characters). */
  detail: string;
}

/** The parked copy of a poison message: its key, bytes and headers, and the dead-letter headers. */
export function deadLetterOf({ message, reason, detail }: Poison): OutgoingMessage {
  return {
    key: message.key,
    value: message.value,
    headers: {
      ...message.headers,
      [DEAD_LETTER_HEADERS.reason]: reason,
      [DEAD_LETTER_HEADERS.detail]: detail.slice(0, 500),
      [DEAD_LETTER_HEADERS.topic]: message.topic,
      [DEAD_LETTER_HEADERS.partition]: String(message.partition),
      [DEAD_LETTER_HEADERS.offset]: message.offset,
    },
  };
}

/**
 * Parks poison messages in `deadLetterTopic`, so the consumer can pass them instead of stalling
 * its partition on them for ever. Resolves once the dead-letter topic has them; a consumer
 * passes a poison message only after this resolved (at least once: a crash between the two
 * parks it again).
 */
export async function parkMessages(
  bus: EventBus,
  deadLetterTopic: string,
  poison: readonly Poison[],
): Promise<void> {
  if (poison.length === 0) return;
  await bus.publish(deadLetterTopic, poison.map(deadLetterOf));
}
