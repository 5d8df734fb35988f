import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/** Test clients of the real-time edges: the spec's `/ws` socket and graphql-ws. */

export interface ServerMessageLike {
  type: string;
  [field: string]: unknown;
}

export interface WsTestClient {
  socket: WebSocket;
  messages: ServerMessageLike[];
  send(message: unknown): void;
  /** Resolves with the first message (from `from` on) matching, or rejects after `timeoutMs`. */
  waitFor(
    predicate: (message: ServerMessageLike) => boolean,
    options?: { from?: number; timeoutMs?: number },
  ): Promise<ServerMessageLike>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export function wsUrlOf(httpUrl: string): string {
  return httpUrl.replace(/^http/, 'ws');
}

export async function openWs(
  url: string,
  headers: Record<string, string> = {},
): Promise<WsTestClient> {
  const socket = new WebSocket(url, { headers });
  const messages: ServerMessageLike[] = [];
  const waiters = new Set<() => void>();
  socket.on('message', (data: Buffer) => {
    messages.push(JSON.parse(data.toString('utf8')) as ServerMessageLike);
    for (const wake of [...waiters]) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code: number, reason: Buffer) => {
      resolve({ code, reason: reason.toString() });
      for (const wake of [...waiters]) wake();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    socket,
    messages,
    closed,
    send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
    waitFor: (predicate, { from = 0, timeoutMs = 5_000 } = {}) =>
      new Promise((resolve, reject) => {
        let next = from;
        const check = () => {
          let found: ServerMessageLike | undefined;
          for (; next < messages.length && !found; next += 1) {
            if (predicate(messages[next]!)) found = messages[next];
          }
          if (found) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`no matching message in ${timeoutMs} ms; got ${JSON.stringify(messages)}`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => socket.close(),
  };
}

export interface GraphQLFeed {
  values: Array<{ data?: Record<string, unknown> | null; errors?: unknown[] }>;
  waitForCount(count: number, timeoutMs?: number): Promise<void>;
  dispose(): void;
}

export function graphqlWsClient(url: string, headers: Record<string, string> = {}): Client {
  return createClient({
    url,
    webSocketImpl: class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers });
      }
    },
    retryAttempts: 0,
    lazy: true,
  });
}

/** Subscribes and collects every `next` payload. */
export function feedOf(
  client: Client,
  query: string,
  variables: Record<string, unknown> = {},
): GraphQLFeed {
  const values: GraphQLFeed['values'] = [];
  const waiters = new Set<() => void>();
  const dispose = client.subscribe(
    { query, variables },
    {
      next: (value) => {
        values.push(value as GraphQLFeed['values'][number]);
        for (const wake of [...waiters]) wake();
      },
      error: (error: unknown) => {
        values.push({ errors: Array.isArray(error) ? error : [error] });
        for (const wake of [...waiters]) wake();
      },
      complete: () => undefined,
    },
  );
  return {
    values,
    dispose,
    waitForCount: (count, timeoutMs = 5_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (values.length >= count) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`only ${values.length} of ${count} values: ${JSON.stringify(values)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
  };
}
