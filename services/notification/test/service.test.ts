import { testContext } from '@underdog/test-support';
import { ComponentGroup, createMetricsRegistry, type Registry } from '@underdog/kit';
import { createMemoryInfrastructure, type ServiceContext } from '@underdog/platform';
import { NotificationService, timestampMs } from '@underdog/proto';
import { createServiceClient } from '@underdog/rpc';
import type { OutgoingMessage } from '@underdog/bus';
import { createNotificationModule, notificationConfig } from '../src';
import { createMemoryMailer, type MemoryMailer } from '../src/mailer';
import {
  capturedLogger,
  eventually,
  publishRequests,
  requestOfUnknownKind,
  undecodableRequest,
  verificationRequest,
} from './support';

const publicUrl = 'https://underdog.example';

async function startNotification(nodeEnv: ServiceContext['nodeEnv'] = 'test') {
  const { logger, lines } = capturedLogger();
  const registry: Registry = createMetricsRegistry('notification');
  const infrastructure = createMemoryInfrastructure(logger);
  const mailer: MemoryMailer = createMemoryMailer({ from: 'Underdog <no-reply@underdog.test>' });
  const module = createNotificationModule(
    { ...testContext(infrastructure, { logger, nodeEnv }), registry },
    notificationConfig({ PUBLIC_URL: publicUrl }),
    { mailer },
  );
  const group = new ComponentGroup(logger, [...infrastructure.components, ...module.components]);
  await group.start();
  const routes = module.registerRpc;
  const client = routes && createServiceClient(NotificationService, { mode: 'in-process', routes });
  return {
    bus: infrastructure.bus,
    mailer,
    module,
    group,
    logLines: lines,
    publish: (...messages: OutgoingMessage[]) => publishRequests(infrastructure.bus, ...messages),
    async mailbox() {
      if (!client) throw new Error('ListMailbox is not served');
      return (await client.listMailbox({})).messages;
    },
    /** Sent messages to `address`, newest first. */
    sentTo: (address: string) => mailer.sent().filter((mail) => mail.to === address),
    async outcomes() {
      const metric = await registry.getSingleMetric('notification_requests_total')?.get();
      return Object.fromEntries(
        (metric?.values ?? []).map((value) => [String(value.labels.outcome), value.value]),
      );
    },
  };
}

type Notification = Awaited<ReturnType<typeof startNotification>>;

describe('the notification service on the in-memory bus', () => {
  let service: Notification;

  beforeEach(async () => {
    service = await startNotification();
  });
  afterEach(() => service.group.stop());

  /** Publishes `sentinel` last with `key` and waits until it is sent: all before it are handled. */
  async function settle(key: string) {
    const sentinel = verificationRequest({ userId: key });
    await service.publish(sentinel.message);
    await eventually(
      () => service.sentTo(sentinel.email),
      (s) => s.length > 0,
      'the sentinel',
    );
  }

  it('e-mails the code and the link of a verification request', async () => {
    const request = verificationRequest({ displayName: 'Ada' });
    await service.publish(request.message);

    const [captured, ...others] = await eventually(
      () => service.mailbox(),
      (messages) => messages.length > 0,
      'the verification e-mail',
    );
    const link = `${publicUrl}/verify-email/${request.token}`;
    expect(others).toEqual([]);
    expect(captured).toMatchObject({
      to: request.email,
      subject: 'Verify your e-mail for Underdog',
    });
    expect(captured!.text).toContain(request.code);
    expect(captured!.text).toContain(link);
    expect(captured!.html).toContain(request.code);
    expect(captured!.html).toContain(`href="${link}"`);
    expect(service.sentTo(request.email)).toHaveLength(1);
  });

  it('escapes the display name in the HTML it sends', async () => {
    const request = verificationRequest({ displayName: '<img src=x onerror=alert(1)>' });
    await service.publish(request.message);

    const [captured] = await eventually(
      () => service.sentTo(request.email),
      (sent) => sent.length > 0,
      'the e-mail',
    );
    expect(captured!.html).not.toContain('<img');
    expect(captured!.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('sends one e-mail when the same event arrives twice', async () => {
    const request = verificationRequest();
    await service.publish(request.message);
    await service.publish(request.message);
    await settle(request.userId);

    expect(service.sentTo(request.email)).toHaveLength(1);
    expect(await service.outcomes()).toMatchObject({ duplicate: 1 });
  });

  it('does not resend the e-mails of a batch that failed half-way when the batch comes again', async () => {
    const first = verificationRequest({ userId: 'user-1' });
    const second = verificationRequest({ userId: 'user-1' });
    service.mailer.failNextSendTo(second.email);
    await service.publish(first.message, second.message);

    await eventually(
      () => service.sentTo(second.email),
      (s) => s.length > 0,
      'the second',
    );
    expect(service.sentTo(first.email)).toHaveLength(1);
    expect(service.mailer.sendAttempts()).toBe(3);
  });

  it('retries while the mail server is unreachable and sends once it is back', async () => {
    service.mailer.setReachable(false);
    const request = verificationRequest();
    await service.publish(request.message);
    await eventually(
      () => service.mailer.sendAttempts(),
      (attempts) => attempts >= 3,
      'repeated attempts',
    );
    expect(await service.mailbox()).toEqual([]);
    expect((await service.group.readiness()).checks).toMatchObject({ mailer: false });

    service.mailer.setReachable(true);
    await settle(request.userId);
    expect(service.sentTo(request.email)).toHaveLength(1);
    expect((await service.group.readiness()).checks).toMatchObject({ mailer: true });
  });

  it.each([
    ['bytes that are not a protobuf message', 'undecodable', () => undecodableRequest('user-1')],
    ['a kind this version does not know', 'unknown_kind', () => requestOfUnknownKind('user-1')],
    [
      'a code that is not 6 digits',
      'invalid',
      () => verificationRequest({ userId: 'user-1', code: '12a456' }).message,
    ],
    [
      'a code that expired before it could be sent',
      'expired',
      () => verificationRequest({ userId: 'user-1', expiresAt: Date.now() - 1_000 }).message,
    ],
    [
      'a recipient the mail server refuses for good',
      'rejected',
      () => {
        const refused = verificationRequest({ userId: 'user-1' });
        service.mailer.refuseRecipient(refused.email);
        return refused.message;
      },
    ],
  ])(
    'skips a request with %s and keeps delivering the ones after it',
    async (_case, outcome, poison) => {
      await service.publish(poison());
      await settle('user-1');

      expect(service.mailer.sent()).toHaveLength(1);
      expect(await service.outcomes()).toEqual({ [outcome]: 1, sent: 1 });
      expect(service.logLines.some((line) => line.includes('skipped'))).toBe(true);
    },
  );

  it('never writes codes, tokens, links or bodies to the log', async () => {
    const sent = verificationRequest({ userId: 'user-1' });
    const retried = verificationRequest({ userId: 'user-1' });
    const invalid = verificationRequest({ userId: 'user-1', code: '98765x' });
    service.mailer.failNextSendTo(retried.email);
    await service.publish(sent.message, retried.message, invalid.message);
    await settle('user-1');

    const log = service.logLines.join('\n');
    expect(log).toContain('verification e-mail sent');
    expect(log).toContain('will be delivered again');
    expect(log).toContain('invalid verification e-mail request');
    for (const secret of [sent, retried, invalid].flatMap((r) => [r.code, r.token])) {
      expect(log).not.toContain(secret);
    }
    expect(log).not.toContain('/verify-email/');
  });

  it('lists the e-mails it sent in ListMailbox, newest first, with the time they were sent', async () => {
    const before = Date.now();
    const requests = [1, 2, 3].map(() => verificationRequest({ userId: 'user-1' }));
    await service.publish(...requests.map((request) => request.message));

    const messages = await eventually(
      () => service.mailbox(),
      (listed) => listed.length === 3,
      'three e-mails',
    );
    expect(messages.map((message) => message.to)).toEqual(
      requests.map((request) => request.email).reverse(),
    );
    for (const message of messages) {
      expect(timestampMs(message.sentAt!)).toBeGreaterThanOrEqual(before);
      expect(timestampMs(message.sentAt!)).toBeLessThanOrEqual(Date.now());
    }
  });
});

describe('the notification service in production', () => {
  it('does not serve ListMailbox, and still sends', async () => {
    const service = await startNotification('production');
    try {
      expect(service.module.registerRpc).toBeUndefined();
      const request = verificationRequest();
      await service.publish(request.message);
      await eventually(
        () => service.sentTo(request.email),
        (s) => s.length > 0,
        'the e-mail',
      );
    } finally {
      await service.group.stop();
    }
  });
});
