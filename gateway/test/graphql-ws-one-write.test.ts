import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createLogger } from '@underdog/kit';
import { buildSchema } from 'graphql';
import WebSocket, { WebSocketServer } from 'ws';
import { serveGraphQLWs } from '../src/graphql/web-socket-server';

/**
 * An answer over graphql-ws (a `castVote`'s, here a small mutation's) is its `next` and its
 * `complete`: the same two frames, in that order, in one write of the server's TCP stream
 * (issue 36).
 */
const logger = createLogger({ service: 'test', level: 'silent' });
const schema = buildSchema('type Query { ok: Boolean } type Mutation { castVote: String }');
const rootValue = { ok: true, castVote: () => 'counted' };

describe('graphql-ws answers in one write', () => {
  let server: WebSocketServer;
  let dispose: () => Promise<void>;
  /** Each server-side socket's writes: one entry per write reaching the kernel. */
  const writes: Buffer[][] = [];

  beforeAll(async () => {
    server = new WebSocketServer({ port: 0, perMessageDeflate: false });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    ({ dispose } = serveGraphQLWs(
      { schema, roots: { mutation: rootValue, query: rootValue } },
      server,
      logger,
      {
        extra: (socket) => {
          const tcp = (socket as unknown as { _socket: Duplex & Required<Pick<Duplex, '_writev'>> })
            ._socket;
          const mine: Buffer[] = [];
          writes.push(mine);
          const writev = tcp._writev.bind(tcp);
          const write = tcp._write.bind(tcp);
          tcp._writev = (chunks, callback) => {
            mine.push(Buffer.concat(chunks.map(({ chunk }) => Buffer.from(chunk as Buffer))));
            return writev(chunks, callback);
          };
          tcp._write = (chunk, encoding, callback) => {
            mine.push(Buffer.from(chunk as Buffer));
            return write(chunk, encoding, callback);
          };
          return { socket };
        },
      },
    ));
  });
  afterAll(async () => {
    await dispose();
  });

  it('sends a mutation answer as next then complete, both frames in one write', async () => {
    const port = (server.address() as AddressInfo).port;
    const socket = new WebSocket(`ws://127.0.0.1:${port}`, 'graphql-transport-ws');
    const received: unknown[] = [];
    socket.on('message', (data: Buffer) => received.push(JSON.parse(data.toString())));
    await new Promise<void>((resolve) => socket.once('open', () => resolve()));
    let closed = false;
    socket.once('close', () => (closed = true));
    /** Waits for `count` messages; a socket the server closed (a protocol error) stops it. */
    const receivedAll = async (count: number) => {
      while (received.length < count && !closed) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    socket.send(JSON.stringify({ type: 'connection_init' }));
    // The acknowledgement first: a subscribe before it is refused (4401), and on a loaded
    // machine it may take longer than any fixed pause (a CI run's 60 s timeout).
    await receivedAll(1);
    const before = writes[0]!.length;
    socket.send(
      JSON.stringify({ id: 'v1', type: 'subscribe', payload: { query: 'mutation { castVote }' } }),
    );
    await receivedAll(3);

    expect(received).toEqual([
      { type: 'connection_ack' },
      { id: 'v1', type: 'next', payload: { data: { castVote: 'counted' } } },
      { id: 'v1', type: 'complete' },
    ]);
    const answer = writes[0]!.slice(before);
    expect(answer).toHaveLength(1);
    // Both frames, unmasked text, next first.
    const text = answer[0]!.toString('latin1');
    expect(text.indexOf('"type":"next"')).toBeGreaterThan(0);
    expect(text.indexOf('"type":"complete"')).toBeGreaterThan(text.indexOf('"type":"next"'));
    socket.close();
  });
});
