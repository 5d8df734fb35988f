import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { smtpSinkClient, testInfra } from '@underdog/harness';
import { startStack, type Stack } from '../stack/stack';

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

  /** A browser-like client: JSON, an X-Device-ID, and a one-cookie jar. */
  function client() {
    const deviceId = `device-${randomUUID()}`;
    let cookie: string | undefined;
    return {
      async call(method: string, path: string, body?: unknown) {
        const response = await fetch(`${stack.gatewayUrl}${path}`, {
          method,
          headers: {
            'content-type': 'application/json',
            'x-device-id': deviceId,
            ...(cookie ? { cookie } : {}),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const setCookie = response.headers.get('set-cookie');
        if (setCookie) cookie = setCookie.split(';')[0];
        const text = await response.text();
        return {
          status: response.status,
          body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
        };
      },
    };
  }

  async function verificationMail(to: string) {
    const sink = smtpSinkClient(testInfra().smtpApiUrl);
    const message = await sink.waitFor((m) => m.to.includes(to), 30_000);
    const code = /\b(\d{6})\b/.exec(message.text)?.[1];
    const token = /\/verify-email\/([A-Za-z0-9_%-]+)/.exec(message.text)?.[1];
    return { message, code, token: token ? decodeURIComponent(token) : undefined };
  }

  it('registers, delivers the code by SMTP, verifies with it, and shows the user verified', async () => {
    const alice = client();
    const email = `alice-${randomUUID().slice(0, 8)}@example.com`;
    const registered = await alice.call('POST', '/api/register', {
      email,
      displayName: 'Alice',
      password: 'wonderland1',
    });
    expect(registered.status).toBe(200);
    expect(registered.body.message).toEqual(expect.any(String));

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
    const email = `bob-${randomUUID().slice(0, 8)}@example.com`;
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
