import { waitFor } from '@underdog/test-support';

/** A browser's cookie handling, as far as these tests need it: keep, replace, expire. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = header.split(';').map((part) => part.trim());
      const [name = '', value = ''] = pair.split('=', 2);
      const expired = attributes.some((attribute) => attribute.toLowerCase() === 'max-age=0');
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  copy(): CookieJar {
    const copy = new CookieJar();
    for (const [name, value] of this.cookies) copy.cookies.set(name, value);
    return copy;
  }
}

export interface Answer {
  status: number;
  body: unknown;
}

export interface BrowserOptions {
  jar?: CookieJar;
  /** The web app's `X-Device-ID`; one device backs one participant per tournament. */
  deviceId?: string;
}

/** A browser of the web app at `url`: one cookie jar, one device id, JSON bodies. */
export function browserAt(url: (path: string) => string, options: BrowserOptions = {}) {
  const jar = options.jar ?? new CookieJar();
  const deviceId = options.deviceId ?? 'device-e2e';
  const request = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const response = await fetch(url(path), {
      method,
      headers: {
        'content-type': 'application/json',
        'x-device-id': deviceId,
        cookie: jar.header(),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    jar.store(response);
    return { status: response.status, body: (await response.json()) as unknown };
  };
  return {
    jar,
    get: (path: string) => request('GET', path),
    post: (path: string, body: unknown = {}) => request('POST', path, body),
    put: (path: string, body: unknown) => request('PUT', path, body),
    delete: (path: string) => request('DELETE', path, {}),
    graphql: (query: string, variables: Record<string, unknown> = {}) =>
      request('POST', '/graphql', { query, variables }),
  };
}

export type Browser = ReturnType<typeof browserAt>;

export interface MailboxMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  sentAt: string;
}

/** The latest e-mail to `email` in the development mailbox, waiting up to 5 s for it. */
export async function mailTo(
  url: (path: string) => string,
  email: string,
): Promise<MailboxMessage> {
  return waitFor(
    async () => {
      const response = await fetch(url('/api/dev/mailbox'));
      const mailbox = (await response.json()) as MailboxMessage[];
      return mailbox.find((message) => message.to === email);
    },
    {
      message: `an e-mail to ${email} in the development mailbox`,
      timeoutMs: 5_000,
      intervalMs: 50,
    },
  );
}

export const codeIn = (mail: MailboxMessage) => /\b(\d{6})\b/.exec(mail.text)?.[1] ?? '';
export const tokenIn = (mail: MailboxMessage) =>
  /\/verify-email\/([\w-]+)/.exec(mail.text)?.[1] ?? '';

let counter = 0;
/** An address no other test uses. */
export const uniqueEmail = (name: string) => `${name}${(counter += 1)}-${Date.now()}@example.com`;

/** The JSON error body of the edge: `requestId` is the call's id, whatever it was. */
export function errorBody(message: unknown, code: string) {
  return { message, code, requestId: expect.any(String) as unknown };
}
