import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testInfra } from '@underdog/harness';
import { startStack, type Stack } from '../stack/stack';
import { apiClient, uniqueEmail, verificationMail } from './support';

/**
 * Accounts on the distributed stack: the gateway, auth and notification as separate processes on
 * real Kafka, Redis, the MongoDB-wire server, with the verification e-mail delivered to a real
 * SMTP server.
 */
describe('accounts on the distributed stack', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      infra: testInfra(),
      logDir: mkdtempSync(join(tmpdir(), 'underdog-accounts-')),
    });
    await stack.waitUntilReady(120_000);
  }, 150_000);

  afterAll(() => stack?.stop());

  const client = () => apiClient(stack.gatewayUrl);

  it('registers, delivers the code by SMTP, verifies with it, and shows the user verified', async () => {
    const alice = client();
    const email = uniqueEmail('alice');
    const registered = await alice.call('POST', '/api/register', {
      email,
      displayName: 'Alice',
      password: 'wonderland1',
    });
    expect(registered.status).toBe(200);
    expect(registered.body).toMatchObject({ message: expect.any(String) });

    const mail = await verificationMail(email);
    expect(mail.code).toMatch(/^\d{6}$/);
    expect(mail.token).toBeDefined();
    expect(mail.message.html).toContain(mail.code!);

    const before = await alice.call('GET', '/api/user');
    expect(before.body).toMatchObject({ email, isEmailVerified: false });
    const verified = await alice.call('POST', '/api/verify-email', { code: mail.code });
    expect(verified.status).toBe(200);
    const after = await alice.call('GET', '/api/user');
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ email, displayName: 'Alice', isEmailVerified: true });
  });

  it('verifies a second account with the link from its e-mail', async () => {
    const bob = client();
    const email = uniqueEmail('bob');
    expect(
      (
        await bob.call('POST', '/api/register', {
          email,
          displayName: 'Bob',
          password: 'builder42',
        })
      ).status,
    ).toBe(200);
    const { token } = await verificationMail(email);
    const visitor = client();
    const verified = await visitor.call('POST', '/api/verify-email', { token });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ user: { email, isEmailVerified: true } });

    const login = await client().call('POST', '/api/login', { email, password: 'builder42' });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ email, isEmailVerified: true });
  });
});
