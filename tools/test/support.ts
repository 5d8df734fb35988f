import { randomUUID } from 'node:crypto';
import { smtpSinkClient, testInfra } from '@underdog/harness';

export interface ApiResponse {
  status: number;
  body: unknown;
}

/** A browser-like client of the gateway: JSON bodies, one X-Device-ID, a one-cookie jar. */
export function apiClient(baseUrl: string) {
  const deviceId = `device-${randomUUID()}`;
  let cookie: string | undefined;
  return {
    deviceId,
    /** The session cookie (`name=value`), '' before one was set: for WebSocket upgrades. */
    cookie: () => cookie ?? '',
    async call(method: string, path: string, body?: unknown): Promise<ApiResponse> {
      const response = await fetch(`${baseUrl}${path}`, {
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
      return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
    },
  };
}

export type ApiClient = ReturnType<typeof apiClient>;

/** The verification e-mail the real SMTP sink received for `to`, with its code and link token. */
export async function verificationMail(to: string) {
  const sink = smtpSinkClient(testInfra().smtpApiUrl);
  const message = await sink.waitFor((m) => m.to.includes(to), 30_000);
  const code = /\b(\d{6})\b/.exec(message.text)?.[1];
  const token = /\/verify-email\/([A-Za-z0-9_%-]+)/.exec(message.text)?.[1];
  return { message, code, token: token ? decodeURIComponent(token) : undefined };
}

export function uniqueEmail(name: string): string {
  return `${name}-${randomUUID().slice(0, 8)}@example.com`;
}

/** Registers through the gateway and verifies with the e-mailed code; returns the logged-in client. */
export async function verifiedUser(baseUrl: string, name: string): Promise<ApiClient> {
  const client = apiClient(baseUrl);
  const email = uniqueEmail(name);
  const registered = await client.call('POST', '/api/register', {
    email,
    displayName: name,
    password: 'password123',
  });
  if (registered.status !== 200) throw new Error(`register failed: ${JSON.stringify(registered)}`);
  const { code } = await verificationMail(email);
  const verified = await client.call('POST', '/api/verify-email', { code });
  if (verified.status !== 200) throw new Error(`verify failed: ${JSON.stringify(verified)}`);
  return client;
}

export const testAdmin = { email: 'admin@underdog.test', password: 'admin-pass-1' };

export async function adminClient(baseUrl: string): Promise<ApiClient> {
  const client = apiClient(baseUrl);
  const login = await client.call('POST', '/api/login', testAdmin);
  if (login.status !== 200) throw new Error(`admin login failed: ${JSON.stringify(login)}`);
  return client;
}
