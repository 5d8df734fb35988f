import { systemClock, type Clock } from '@underdog/kit';
import { MailRejectedError, type Mailer, type OutgoingMail } from './port';

export interface SentMail extends OutgoingMail {
  from: string;
  sentAt: Date;
}

export interface MemoryMailerOptions {
  /** The sender every message carries, as the SMTP adapter's `from`. */
  from: string;
  /** How many sent messages the outbox keeps; older ones are dropped. */
  limit?: number;
  /** The `sentAt` of each message; default: the system clock. */
  clock?: Clock;
}

/**
 * The mail port in memory: "sending" appends to an outbox. Used when no SMTP server is configured
 * (standalone and development) and by unit tests, which also use its fault hooks to play an
 * unreachable or refusing mail server.
 */
export function createMemoryMailer(options: MemoryMailerOptions): MemoryMailer {
  return new MemoryMailer(options);
}

export class MemoryMailer implements Mailer {
  private readonly outbox: SentMail[] = [];
  private readonly limit: number;
  private readonly clock: Clock;
  private reachable = true;
  private readonly failOnce = new Set<string>();
  private readonly refused = new Set<string>();
  private attempts = 0;

  constructor(private readonly options: MemoryMailerOptions) {
    this.limit = options.limit ?? 1_000;
    this.clock = options.clock ?? systemClock;
  }

  async send(mail: OutgoingMail): Promise<void> {
    this.attempts++;
    if (!this.reachable) throw new Error('memory mailer: the mail server is unreachable');
    if (this.failOnce.delete(mail.to)) {
      throw new Error('memory mailer: the connection broke while sending');
    }
    if (this.refused.has(mail.to)) {
      throw new MailRejectedError('memory mailer: 550 mailbox unavailable');
    }
    this.outbox.unshift({ ...mail, from: this.options.from, sentAt: this.clock.now() });
    if (this.outbox.length > this.limit) this.outbox.length = this.limit;
  }

  async verify(): Promise<void> {
    if (!this.reachable) throw new Error('memory mailer: the mail server is unreachable');
  }

  async close(): Promise<void> {}

  /** What was sent, newest first. */
  sent(): SentMail[] {
    return this.outbox.map((mail) => ({ ...mail }));
  }

  /** How many sends were attempted, failed ones included. */
  sendAttempts(): number {
    return this.attempts;
  }

  /** Plays an outage: while unreachable, `send` and `verify` reject with a transient error. */
  setReachable(reachable: boolean): void {
    this.reachable = reachable;
  }

  /** The next send to `address` fails once with a transient error. */
  failNextSendTo(address: string): void {
    this.failOnce.add(address);
  }

  /** Every send to `address` is refused permanently (`MailRejectedError`). */
  refuseRecipient(address: string): void {
    this.refused.add(address);
  }
}
