// The bench's client of the gateway's REST API, signed in as the bench admin.
import { randomUUID } from 'node:crypto';

/** The bench admin, created by every process of the target from ADMIN_EMAIL/ADMIN_PASSWORD. */
export const admin = { email: 'bench-admin@underdog.test', password: 'bench-admin-1' };

/** A minimal client of the gateway's REST API, as the spec's client calls it. */
export class Api {
  private cookie = '';
  private readonly deviceId = `bench-${randomUUID()}`;

  constructor(readonly baseUrl: string) {}

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    // A pooled keep-alive connection the server closed meanwhile fails at once: try again.
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.once<T>(method, path, body);
      } catch (error) {
        if (!(error instanceof TypeError) || attempt >= 3) throw error;
      }
    }
  }

  private async once<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        'x-device-id': this.deviceId,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.cookie ? { cookie: this.cookie } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(600_000),
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0] ?? '';
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
}
