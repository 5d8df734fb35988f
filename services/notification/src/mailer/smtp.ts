import { createTransport } from 'nodemailer';
import { MailRejectedError, type Mailer, type OutgoingMail } from './port';

export interface SmtpMailerOptions {
  /** smtp://[user:password@]host:port (smtps:// for implicit TLS). */
  url: string;
  /** The From header and envelope sender, e.g. `Underdog <no-reply@example.com>`. */
  from: string;
  /** How long to wait for a connection and for the server's greeting. */
  connectTimeoutMs?: number;
  /** How long a connection may stay silent before it counts as broken. */
  socketTimeoutMs?: number;
}

/** The fields of a nodemailer error this adapter reads. */
interface SmtpFailure {
  permanent?: boolean;
  command?: string;
  code?: string;
}

/**
 * Sends over SMTP with nodemailer's pooled transport: a few long-lived connections shared by all
 * sends, instead of a TCP (and maybe TLS) handshake per e-mail.
 */
export function createSmtpMailer(options: SmtpMailerOptions): Mailer {
  const connectTimeout = options.connectTimeoutMs ?? 10_000;
  const transport = createTransport(
    {
      url: options.url,
      pool: true,
      maxConnections: 5,
      // The defaults (2 minutes to connect, 10 to notice a dead socket) would stall a consumer
      // batch for minutes before the failure is reported and the batch retried.
      connectionTimeout: connectTimeout,
      greetingTimeout: connectTimeout,
      socketTimeout: options.socketTimeoutMs ?? 30_000,
    },
    { from: options.from },
  );

  return {
    async send(mail: OutgoingMail) {
      try {
        await transport.sendMail({
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
        });
      } catch (error) {
        throw isPermanentRejection(error)
          ? new MailRejectedError(`the SMTP server refused the message: ${errorText(error)}`, {
              cause: error,
            })
          : error;
      }
    },
    async verify() {
      await transport.verify();
    },
    async close() {
      transport.close();
    },
  };
}

/**
 * Permanent means a 5xx reply about this message: its recipient (RCPT TO) or its content (after
 * DATA). A 5xx to AUTH or MAIL FROM is not: it says the service is misconfigured (credentials,
 * sender address), which would refuse every message, so those stay retryable until someone fixes
 * the configuration instead of silently dropping everyone's e-mail.
 */
function isPermanentRejection(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const failure = error as SmtpFailure;
  if (failure.permanent !== true) return false;
  return (
    failure.command === 'RCPT TO' || (failure.command === 'DATA' && failure.code === 'EMESSAGE')
  );
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
