import { randomUUID } from 'node:crypto';
import { MailRejectedError, type Mailer, type OutgoingMail } from '../src/mailer';

/** A message as the receiving side saw it. */
export interface DeliveredMail {
  /** The envelope sender's address. */
  from: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailerFixture {
  mailer: Mailer;
  /** The address the mailer was configured to send from. */
  fromAddress: string;
  /** Everything delivered to `address` so far, newest first, read back from the receiving side. */
  deliveredTo(address: string): Promise<DeliveredMail[]>;
  /** A mailer of the same adapter whose mail server cannot be reached. */
  unreachableMailer(): Promise<Mailer>;
  cleanup(): Promise<void>;
}

/** A unique recipient per test, so tests sharing one mail server never read each other's mail. */
export const uniqueAddress = (label = 'player') => `${label}-${randomUUID()}@example.test`;

const mail = (overrides: Partial<OutgoingMail> = {}): OutgoingMail => ({
  to: uniqueAddress(),
  subject: 'Your round starts soon',
  text: 'Hello Zoë — your code is 123456.\n',
  html: '<p>Hello <b>Zoë</b> — your code is <code>123456</code>.</p>',
  ...overrides,
});

/**
 * The Mailer contract: what the notification service relies on, for every adapter. The memory
 * adapter runs it in the unit project; SMTP runs it against the harness's real SMTP server.
 */
export function describeMailerContract(
  adapter: string,
  createFixture: () => Promise<MailerFixture>,
) {
  describe(`Mailer contract: ${adapter}`, () => {
    let fixture: MailerFixture;

    beforeEach(async () => {
      fixture = await createFixture();
    });
    afterEach(() => fixture.cleanup());

    it('delivers subject, text and HTML to the recipient unchanged', async () => {
      const sent = mail({
        subject: 'Vérifiez — ✓ Underdog',
        text:
          'Non-ASCII: Zoë, Ĳsselmeer, 日本, 🎲.\nA long line that must survive transfer encoding '.repeat(
            3,
          ) + '\n',
        html: '<p>Non-ASCII: Zoë, 日本, 🎲 &amp; <a href="http://localhost:8080/x?a=1&amp;b=2">a link</a></p>',
      });
      await fixture.mailer.send(sent);

      const delivered = await fixture.deliveredTo(sent.to);
      expect(delivered).toHaveLength(1);
      // Transfer encodings may add a final line break; nothing else may change.
      expect(delivered[0]!.subject).toBe(sent.subject);
      expect(delivered[0]!.text.trimEnd()).toBe(sent.text.trimEnd());
      expect(delivered[0]!.html.trimEnd()).toBe(sent.html.trimEnd());
    });

    it('sends from the configured sender', async () => {
      const sent = mail();
      await fixture.mailer.send(sent);
      const [delivered] = await fixture.deliveredTo(sent.to);
      expect(delivered?.from).toContain(fixture.fromAddress);
    });

    it('delivers each of many messages sent at once exactly once', async () => {
      const batch = Array.from({ length: 12 }, (_, i) => mail({ subject: `message ${i}` }));
      await Promise.all(batch.map((message) => fixture.mailer.send(message)));
      for (const message of batch) {
        const delivered = await fixture.deliveredTo(message.to);
        expect(delivered.map((d) => d.subject)).toEqual([message.subject]);
      }
    });

    it('verifies while its mail server is reachable', async () => {
      await expect(fixture.mailer.verify()).resolves.toBeUndefined();
    });

    it('fails to send and to verify, as a retryable failure, when the server cannot be reached', async () => {
      const unreachable = await fixture.unreachableMailer();
      try {
        const sent = mail();
        const failure = await unreachable.send(sent).then(
          () => undefined,
          (error: unknown) => error,
        );
        // Errors from Node's sockets come from another realm than jest's, so no instanceof Error.
        expect(failure).toHaveProperty('message', expect.any(String));
        expect(failure).not.toBeInstanceOf(MailRejectedError);
        await expect(unreachable.verify()).rejects.toHaveProperty('message', expect.any(String));
        expect(await fixture.deliveredTo(sent.to)).toEqual([]);
      } finally {
        await unreachable.close();
      }
    });
  });
}
