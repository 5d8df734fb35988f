/** One e-mail to one person. Both bodies are complete: mail clients show whichever they prefer. */
export interface OutgoingMail {
  /** The recipient's address (no display name: nothing user-provided goes into headers). */
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * The mail port: how the service hands an e-mail over for delivery. `send` resolves once the
 * transport has accepted the message (for SMTP: the server answered 250 to the message body).
 *
 * Failures come in two kinds, because a consumer must treat them differently:
 * - `MailRejectedError`: the server refused this message for good (a 5xx reply to the recipient
 *   or the message body). Sending it again gets the same answer.
 * - any other error: the transport could not deliver right now (connection refused, timeout,
 *   4xx, authentication failure). The same message can succeed later.
 */
export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  /** Resolves when the transport can deliver (SMTP: connects and authenticates); rejects otherwise. */
  verify(): Promise<void>;
  close(): Promise<void>;
}

/** The server refused this message permanently; retrying would be refused again. */
export class MailRejectedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MailRejectedError';
  }
}
