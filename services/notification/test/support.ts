import { randomUUID } from 'node:crypto';
import type { EventBus, OutgoingMessage } from '@underdog/bus';
import { createLogger, type Logger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  EventHeader,
  NotificationRequestSchema,
  create,
  eventTypeOf,
  timestampFromMs,
  timestampNow,
  toBinary,
  type MessageInitShape,
  type VerificationEmailRequestedSchema,
} from '@underdog/proto';

export interface VerificationRequestOptions {
  userId?: string;
  eventId?: string;
  email?: string;
  displayName?: string;
  code?: string;
  token?: string;
  /** Milliseconds since the epoch; default ten minutes from now. */
  expiresAt?: number;
}

/** A `VerificationEmailRequested` as auth publishes it, with its key and headers. */
export function verificationRequest(options: VerificationRequestOptions = {}) {
  const userId = options.userId ?? randomUUID();
  const email = options.email ?? `player-${randomUUID()}@example.test`;
  const code = options.code ?? String(100_000 + Math.floor(Math.random() * 900_000));
  const token = options.token ?? randomUUID().replaceAll('-', '');
  const fields: MessageInitShape<typeof VerificationEmailRequestedSchema> = {
    email,
    displayName: options.displayName ?? 'Ada',
    code,
    token,
    expiresAt: timestampFromMs(options.expiresAt ?? Date.now() + 10 * 60_000),
  };
  const request = create(NotificationRequestSchema, {
    userId,
    occurredAt: timestampNow(),
    kind: { case: 'verificationEmail', value: fields },
  });
  const message: OutgoingMessage = {
    key: userId,
    value: toBinary(NotificationRequestSchema, request),
    headers: {
      [EventHeader.type]: eventTypeOf(request),
      [EventHeader.id]: options.eventId ?? randomUUID(),
    },
  };
  return {
    message,
    userId,
    email,
    code,
    token,
  };
}

/** A request whose `kind` is none this version knows (as a newer producer's would decode). */
export function requestOfUnknownKind(userId: string = randomUUID()): OutgoingMessage {
  const request = create(NotificationRequestSchema, { userId, occurredAt: timestampNow() });
  return {
    key: userId,
    value: toBinary(NotificationRequestSchema, request),
    headers: {
      [EventHeader.type]: 'underdog.events.v1.SomethingNew',
      [EventHeader.id]: randomUUID(),
    },
  };
}

/** Bytes that are not a protobuf message at all. */
export function undecodableRequest(userId: string = randomUUID()): OutgoingMessage {
  return {
    key: userId,
    value: new Uint8Array([0xff, 0xff, 0xff, 0xff]),
    headers: { [EventHeader.id]: randomUUID() },
  };
}

export async function publishRequests(
  bus: EventBus,
  ...messages: OutgoingMessage[]
): Promise<void> {
  await bus.publish(topics.notificationRequests.name, messages);
}

/** A logger whose lines a test can read, at debug level so every line that could leak shows. */
export function capturedLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({
    service: 'notification',
    level: 'debug',
    destination: { write: (line: string) => void lines.push(line) },
  });
  return { logger, lines };
}

export { eventually } from '@underdog/test-support';
