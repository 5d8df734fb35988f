import { batchConsumer, inMessageContext, type BusMessage, type EventBus } from '@underdog/bus';
import { systemClock, type Clock, type Component, type Logger, type Registry } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  EventHeader,
  NotificationRequestSchema,
  fromBinary,
  timestampMs,
  type NotificationRequest,
  type VerificationEmailRequested,
} from '@underdog/proto';
import { Counter } from 'prom-client';
import { z } from 'zod';
import type { PublicUrl } from './config';
import { MailRejectedError, type Mailer } from './mailer';
import { RecentIds } from './recent-ids';
import { renderVerificationEmail, verificationLink } from './templates';

/*
 * Consumer of `notification.requests`: one e-mail per request. What happens on failure decides
 * whether a message is delivered again, so each case is explicit:
 *
 * - Transient send failures (SMTP unreachable, timeout, 4xx, bad credentials) THROW. The batch is
 *   not committed and the bus delivers it again after a back-off: the e-mail is sent once the
 *   server is back (at least once). The partition waits meanwhile, which is right: every later
 *   message needs the same server.
 * - Messages that can never succeed are LOGGED AND SKIPPED, so one poison message cannot block
 *   its partition for every user behind it: bytes that do not decode, a kind this version does not
 *   know (a newer producer), a request with invalid fields, a recipient or body the SMTP server
 *   refuses permanently (5xx), and a request whose code has already expired (sending it would
 *   only confuse; the user asks for a new one).
 *
 * Idempotence: the ids (`event-id` header) of the last events handled are remembered in memory,
 * so a batch delivered again (after a failure half-way through it, or a producer retry that
 * published an event twice) sends each e-mail once per process. The memory is lost when the
 * process stops, so a crash (or a rebalance that moves the partition to another replica) between
 * sending and committing the offset sends that e-mail again. Accepted: a duplicate verification
 * e-mail carries the same, still valid code and link, so it is harmless, whereas making send and
 * commit atomic would need a shared store and still could not un-send an e-mail the SMTP server
 * took just before a crash.
 *
 * Never logged: codes, tokens, links, message bodies (the topic carries secrets).
 */

export const notificationGroupId = 'notification';

/** What became of one request; the label of `notification_requests_total`. */
export type RequestOutcome =
  'sent' | 'duplicate' | 'undecodable' | 'unknown_kind' | 'invalid' | 'expired' | 'rejected';

export interface NotificationConsumerOptions {
  bus: EventBus;
  mailer: Mailer;
  /** Base of the links in e-mails (the web app), without a trailing slash. */
  publicUrl: PublicUrl;
  logger: Logger;
  registry: Registry;
  /** What a link's expiry is checked against; default: the system clock. */
  clock?: Clock;
}

interface MessageContext {
  eventId: string;
  userId: string;
  partition: number;
  offset: string;
}

// Checked only so a malformed request is skipped with a clear reason rather than sent broken.
// Lenient on the address on purpose: auth validated it; this only refuses what cannot be sent.
const verificationEmailFields = z.object({
  email: z
    .string()
    .max(254)
    .regex(/^[^\s@]+@[^\s@]+$/),
  code: z.string().regex(/^\d{6}$/),
  token: z.string().min(1).max(1_000),
});

/** Turns notification requests into e-mails; the bus-facing half of the consumer. */
export class NotificationRequestHandler {
  private readonly handled = new RecentIds();
  private readonly clock: Clock;
  private readonly requests: Counter<'outcome'>;
  private readonly sendFailures: Counter;

  constructor(private readonly options: Omit<NotificationConsumerOptions, 'bus'>) {
    this.clock = options.clock ?? systemClock;
    this.requests = new Counter({
      name: 'notification_requests_total',
      help: 'Notification requests consumed, by outcome (sent, duplicate, or why it was skipped)',
      labelNames: ['outcome'],
      registers: [options.registry],
    });
    this.sendFailures = new Counter({
      name: 'notification_send_failures_total',
      help: 'Sends that failed transiently; their batch is delivered again',
      registers: [options.registry],
    });
  }

  /**
   * One message after the other, in order: requests for one user share a key, and a resend
   * replaces the older code, so the newest e-mail must go out last.
   */
  async handleBatch(batch: BusMessage[]): Promise<void> {
    for (const message of batch) await inMessageContext(message, () => this.handle(message));
  }

  private async handle(message: BusMessage): Promise<void> {
    const context: MessageContext = {
      // Producers always set event-id; without one, the message's position still identifies
      // it across redeliveries.
      eventId:
        message.headers[EventHeader.id] ||
        `${message.topic}/${message.partition}/${message.offset}`,
      userId: message.key,
      partition: message.partition,
      offset: message.offset,
    };
    if (this.handled.has(context.eventId)) {
      this.options.logger.debug(context, 'notification request already handled; skipped');
      this.requests.inc({ outcome: 'duplicate' });
      return;
    }
    const outcome = await this.process(message, context);
    this.handled.add(context.eventId);
    this.requests.inc({ outcome });
  }

  private async process(message: BusMessage, context: MessageContext): Promise<RequestOutcome> {
    let request: NotificationRequest;
    try {
      // A tombstone is no request; decoding fails and the message is skipped like any garbage.
      if (message.value === null) throw new Error('tombstone on notification.requests');
      request = fromBinary(NotificationRequestSchema, message.value);
    } catch (error) {
      this.options.logger.warn(
        { ...context, err: error },
        'undecodable notification request; skipped',
      );
      return 'undecodable';
    }
    switch (request.kind.case) {
      case 'verificationEmail':
        return this.sendVerificationEmail(request.kind.value, context);
      case undefined:
        this.options.logger.warn(
          { ...context, eventType: message.headers[EventHeader.type] },
          'notification request of a kind this version does not know; skipped',
        );
        return 'unknown_kind';
    }
  }

  private async sendVerificationEmail(
    request: VerificationEmailRequested,
    context: MessageContext,
  ): Promise<RequestOutcome> {
    const { logger } = this.options;
    const checked = verificationEmailFields.safeParse(request);
    if (!checked.success) {
      // Field names only: the values are the secrets this topic carries.
      const invalidFields = [...new Set(checked.error.issues.map((issue) => issue.path.join('.')))];
      logger.warn({ ...context, invalidFields }, 'invalid verification e-mail request; skipped');
      return 'invalid';
    }

    const now = this.clock.now().getTime();
    const expiresAt = request.expiresAt === undefined ? undefined : timestampMs(request.expiresAt);
    if (expiresAt !== undefined && expiresAt <= now) {
      logger.info(context, 'verification code expired before its e-mail could be sent; skipped');
      return 'expired';
    }

    const email = renderVerificationEmail({
      displayName: request.displayName,
      code: checked.data.code,
      link: verificationLink(publicUrlOf(this.options.publicUrl), checked.data.token),
      validForMinutes: expiresAt === undefined ? undefined : Math.ceil((expiresAt - now) / 60_000),
    });
    try {
      await this.options.mailer.send({ to: checked.data.email, ...email });
    } catch (error) {
      if (error instanceof MailRejectedError) {
        logger.warn(
          { ...context, err: error },
          'the mail server refused the verification e-mail; skipped',
        );
        return 'rejected';
      }
      this.sendFailures.inc();
      logger.warn(
        { ...context, err: error },
        'sending the verification e-mail failed; the batch will be delivered again',
      );
      throw error;
    }
    logger.info(context, 'verification e-mail sent');
    return 'sent';
  }
}

/**
 * The consumer as a process component: joins group `notification` on start, leaves on stop. Not
 * an `eventConsumer`: its handler classifies every request (sent, expired, invalid, …) for the
 * outcome metric and logs without the values this topic carries, so it keeps its own batch loop
 * under the bus's `batchConsumer`.
 */
export function notificationRequestsConsumer(options: NotificationConsumerOptions): Component {
  const handler = new NotificationRequestHandler(options);
  return batchConsumer(options.bus, {
    name: 'notification-requests-consumer',
    groupId: notificationGroupId,
    topics: [topics.notificationRequests.name],
    // A new group starts at the oldest retained request, so none made before the first
    // deployment is lost; the ones whose code has expired since are skipped.
    fromBeginning: true,
    handleBatch: (batch) => handler.handleBatch(batch),
  });
}

function publicUrlOf(publicUrl: PublicUrl): string {
  return typeof publicUrl === 'string' ? publicUrl : publicUrl();
}
