import { testContext } from '@underdog/test-support';
import { createKafkaBus, type KafkaBus } from '@underdog/bus';
import { smtpSinkClient, testInfra } from '@underdog/harness';
import { ComponentGroup, createLogger } from '@underdog/kit';
import { createDistributedInfrastructure } from '@underdog/platform';
import { notificationService } from '../src';
import { publishRequests, undecodableRequest, verificationRequest } from './support';

const publicUrl = 'https://play.underdog.example';

/**
 * The service as it runs in production: configured from the environment, consuming
 * `notification.requests` from a real Kafka and sending through a real SMTP server.
 *
 * Other integration tests (the distributed stack) may run a notification process in the same
 * consumer group at the same time. Either member may then handle a request; both send to the same
 * SMTP server, so the tests look for the e-mail there and do not care which member sent it.
 */
describe('the notification service on Kafka, sending through a real SMTP server', () => {
  // kafkajs reports the coordinator's start-up as errors; keep the output readable.
  const logger = createLogger({ service: 'notification', level: 'silent' });
  const sink = smtpSinkClient(testInfra().smtpApiUrl);
  let group: ComponentGroup;
  let publisher: KafkaBus;

  beforeAll(async () => {
    const env = { NODE_ENV: 'production', SMTP_URL: testInfra().smtpUrl, PUBLIC_URL: publicUrl };
    const infrastructure = await createDistributedInfrastructure(
      {
        service: notificationService.name,
        instanceId: 'int-test',
        needs: notificationService.needs,
        kafkaBrokers: testInfra().kafkaBrokers,
        mongoDb: 'unused',
      },
      logger,
    );
    const module = await notificationService.create(
      testContext(infrastructure, { logger, nodeEnv: 'production' }),
      notificationService.config(env),
    );
    group = new ComponentGroup(logger, [...infrastructure.components, ...module.components]);
    await group.start();
    publisher = createKafkaBus({
      brokers: testInfra().kafkaBrokers,
      clientId: 'notification-test-publisher',
      logger,
    });
  }, 90_000);

  afterAll(async () => {
    await publisher?.close();
    await group?.stop();
  });

  it('is ready: Kafka answers and the SMTP server accepts a connection', async () => {
    expect(await group.readiness()).toEqual({
      ready: true,
      checks: { kafka: true, mailer: true, 'notification-requests-consumer': true },
    });
  });

  it('e-mails the code and the link of a request published on Kafka', async () => {
    const request = verificationRequest({ displayName: 'Grace <3' });
    await publishRequests(publisher, request.message);

    const delivered = await sink.waitFor((mail) => mail.to.includes(request.email), 30_000);
    const link = `${publicUrl}/verify-email/${request.token}`;
    expect(delivered).toMatchObject({
      to: [request.email],
      from: 'no-reply@underdog.local',
      subject: 'Verify your e-mail for Underdog',
    });
    expect(delivered.text).toContain(request.code);
    expect(delivered.text).toContain(link);
    expect(delivered.html).toContain(request.code);
    expect(delivered.html).toContain(`href="${link}"`);
    expect(delivered.html).toContain('Hi Grace &lt;3,');
  });

  it('skips a message it cannot decode and delivers the ones after it on the same partition', async () => {
    const request = verificationRequest({ userId: 'poisoned-user' });
    await publishRequests(publisher, undecodableRequest('poisoned-user'), request.message);

    const delivered = await sink.waitFor((mail) => mail.to.includes(request.email), 30_000);
    expect(delivered.text).toContain(request.code);
  });
});
