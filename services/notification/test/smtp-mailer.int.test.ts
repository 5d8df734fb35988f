import type { AddressInfo } from 'node:net';
import { freePort, smtpSinkClient, testInfra } from '@underdog/harness';
import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';
import { MailRejectedError, createSmtpMailer, type Mailer } from '../src/mailer';
import { describeMailerContract, uniqueAddress } from './mailer.contract';

const from = 'Underdog <no-reply@underdog.test>';

describeMailerContract('SMTP (the harness SMTP server)', async () => {
  const sink = smtpSinkClient(testInfra().smtpApiUrl);
  const mailer = createSmtpMailer({ url: testInfra().smtpUrl, from });
  return {
    mailer,
    fromAddress: 'no-reply@underdog.test',
    deliveredTo: async (address) =>
      (await sink.messages()).filter((message) => message.to.includes(address)),
    unreachableMailer: async () =>
      createSmtpMailer({
        // Free means nobody listens there: connections are refused.
        url: `smtp://127.0.0.1:${await freePort()}`,
        from,
        connectTimeoutMs: 2_000,
      }),
    cleanup: () => mailer.close(),
  };
});

/** SMTP replies as `smtp-server` sends them: an error carrying the reply code. */
function reply(code: number, text: string): Error & { responseCode: number } {
  return Object.assign(new Error(text), { responseCode: code });
}

function drain(stream: SMTPServerDataStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.once('error', reject);
  });
}

/**
 * Which SMTP failures are permanent decides whether the consumer skips a message or retries it
 * (and blocks its partition meanwhile), so it is checked against a real SMTP conversation: a
 * server that refuses some recipients, senders and contents.
 */
describe('SMTP mailer against a server that refuses', () => {
  let server: SMTPServer;
  let url: string;
  const mailers: Mailer[] = [];

  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onMailFrom(address, _session, callback) {
        if (address.address.startsWith('blocked')) callback(reply(550, 'sender not allowed'));
        else callback();
      },
      onRcptTo(address, _session, callback) {
        if (address.address.startsWith('refused')) callback(reply(550, 'no such mailbox'));
        else if (address.address.startsWith('deferred')) callback(reply(451, 'try again later'));
        else callback();
      },
      onData(stream, _session, callback) {
        drain(stream).then(
          (raw) =>
            raw.includes('Subject: spam') ? callback(reply(554, 'content refused')) : callback(),
          (error: unknown) => callback(error as Error),
        );
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await Promise.all(mailers.map((mailer) => mailer.close()));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const mailerFrom = (sender: string) => {
    const mailer = createSmtpMailer({ url, from: sender });
    mailers.push(mailer);
    return mailer;
  };
  const attempt = (mailer: Mailer, to: string, subject = 'Verify your e-mail') =>
    mailer.send({ to, subject, text: 'text', html: '<p>html</p>' }).then(
      () => 'sent',
      (error: unknown) => (error instanceof MailRejectedError ? 'refused for good' : 'retryable'),
    );

  it('reports a recipient refused with 5xx as permanently refused', async () => {
    expect(await attempt(mailerFrom(from), uniqueAddress('refused'))).toBe('refused for good');
  });

  it('reports a message body refused with 5xx as permanently refused', async () => {
    expect(await attempt(mailerFrom(from), uniqueAddress(), 'spam')).toBe('refused for good');
  });

  it('reports a recipient deferred with 4xx as retryable', async () => {
    expect(await attempt(mailerFrom(from), uniqueAddress('deferred'))).toBe('retryable');
  });

  it('reports a refused sender as retryable: a configuration problem must not drop every e-mail', async () => {
    const blocked = mailerFrom('Underdog <blocked@underdog.test>');
    expect(await attempt(blocked, uniqueAddress())).toBe('retryable');
  });

  it('sends what the server accepts', async () => {
    expect(await attempt(mailerFrom(from), uniqueAddress())).toBe('sent');
  });
});
