import { systemClock, withTimeout, type Clock, type Component } from '@underdog/kit';
import type { ServiceContext, ServiceDefinition, ServiceModule } from '@underdog/platform';
import { NotificationService, timestampFromDate } from '@underdog/proto';
import type { RegisterRoutes } from '@underdog/rpc';
import { notificationConfig, type NotificationConfig } from './config';
import { notificationRequestsConsumer } from './consumer';
import {
  Mailbox,
  capturingMailer,
  createMemoryMailer,
  createSmtpMailer,
  type Mailer,
} from './mailer';

/** Adapters a caller may provide instead of the ones the configuration picks (tests). */
export interface NotificationAdapters {
  /** Where e-mails are delivered; default: SMTP when `SMTP_URL` is set, else an in-memory outbox. */
  mailer?: Mailer;
  /** When mail is sent and links expire; default: the system clock. */
  clock?: Clock;
}

/**
 * Messages to people: consumes `notification.requests` and sends the e-mails (see README).
 * Outside production every message sent is also kept in a development mailbox, listed by
 * `NotificationService.ListMailbox`; in production that RPC does not exist.
 */
export function createNotificationModule(
  { infrastructure, logger, registry, nodeEnv }: ServiceContext,
  config: NotificationConfig,
  adapters: NotificationAdapters = {},
): ServiceModule {
  const clock = adapters.clock ?? systemClock;
  const delivery =
    adapters.mailer ??
    (config.smtpUrl === undefined
      ? createMemoryMailer({ from: config.mailFrom, clock })
      : createSmtpMailer({ url: config.smtpUrl, from: config.mailFrom }));
  const mailbox = nodeEnv === 'production' ? undefined : new Mailbox();
  const mailer = mailbox === undefined ? delivery : capturingMailer(delivery, mailbox, clock);
  // Never the URL itself: it may carry the SMTP password.
  logger.info(
    {
      delivery: adapters.mailer ? 'provided' : config.smtpUrl === undefined ? 'memory' : 'smtp',
      devMailbox: mailbox !== undefined,
    },
    'mail delivery configured',
  );

  const mailerComponent: Component = {
    name: 'mailer',
    stop: () => mailer.close(),
    // Bounded, so /readyz answers in time even when the SMTP server does not.
    isReady: () => withTimeout(mailer.verify(), 3_000, 'verifying the mailer').then(() => true),
  };
  return {
    // The mailer first: stopped last, after the consumer has finished the batch in flight.
    components: [
      mailerComponent,
      notificationRequestsConsumer({
        bus: infrastructure.bus,
        mailer,
        publicUrl: config.publicUrl,
        logger,
        registry,
        clock,
      }),
    ],
    registerRpc: mailbox === undefined ? undefined : mailboxRoutes(mailbox),
  };
}

/** ListMailbox: the development mailbox, newest first. */
function mailboxRoutes(mailbox: Mailbox): RegisterRoutes {
  return (router) =>
    router.service(NotificationService, {
      listMailbox: () => ({
        messages: mailbox.list().map(({ sentAt, ...mail }) => ({
          ...mail,
          sentAt: timestampFromDate(sentAt),
        })),
      }),
    });
}

export const notificationService: ServiceDefinition<NotificationConfig> = {
  name: 'notification',
  defaultPort: 8085,
  needs: ['bus'],
  config: notificationConfig,
  create: (context, config) => createNotificationModule(context, config),
};
