import { systemClock, type Clock } from '@underdog/kit';
import type { Mailer, OutgoingMail } from './port';

export interface CapturedMail extends OutgoingMail {
  sentAt: Date;
}

export const defaultMailboxLimit = 200;

/**
 * The development mailbox: the last messages sent, newest first, so a developer (or a test) can
 * read the verification code without a mail server. Never created in production, where it would
 * hold every user's codes in memory and serve them to whoever reaches the service.
 */
export class Mailbox {
  private readonly messages: CapturedMail[] = [];

  constructor(private readonly limit = defaultMailboxLimit) {}

  record(mail: OutgoingMail, sentAt: Date): void {
    const { to, subject, text, html } = mail;
    this.messages.unshift({ to, subject, text, html, sentAt });
    if (this.messages.length > this.limit) this.messages.length = this.limit;
  }

  /** Newest first; copies, so callers cannot change what the mailbox holds. */
  list(): CapturedMail[] {
    return this.messages.map((mail) => ({ ...mail }));
  }
}

/**
 * Sends through `mailer` and keeps a copy of every message it accepted in `mailbox`. A message
 * whose send failed is not recorded: the mailbox shows what was sent, not what was attempted.
 */
export function capturingMailer(
  mailer: Mailer,
  mailbox: Mailbox,
  clock: Clock = systemClock,
): Mailer {
  return {
    async send(mail) {
      await mailer.send(mail);
      mailbox.record(mail, clock.now());
    },
    verify: () => mailer.verify(),
    close: () => mailer.close(),
  };
}
