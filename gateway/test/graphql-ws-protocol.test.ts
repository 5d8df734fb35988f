import WebSocket from 'ws';
import { startEdgeGateway, type EdgeGateway } from './edge-support';

/** A graphql-ws connection, acknowledged, and a promise of its close (code, reason). */
async function acknowledgedSocket(gateway: EdgeGateway) {
  const socket = new WebSocket(
    gateway.url('/graphql').replace('http', 'ws'),
    'graphql-transport-ws',
  );
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'connection_init' }));
  await new Promise<void>((resolve) => socket.once('message', () => resolve()));
  return { socket, closed };
}

describe('graphql-ws protocol misuse', () => {
  let gateway: EdgeGateway;
  let consoleError: jest.SpyInstance;
  beforeAll(async () => {
    gateway = await startEdgeGateway();
  });
  beforeEach(() => {
    consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => consoleError.mockRestore());
  afterAll(async () => {
    await gateway.stop();
  });

  it.each([
    ['next', { type: 'next', id: '1', payload: { data: null } }],
    ['connection_ack', { type: 'connection_ack' }],
    ['error', { type: 'error', id: '1', payload: [{ message: 'x' }] }],
  ])(
    'closes a client that sends %s (a server message) with 4400 and logs one structured line',
    async (type, message) => {
      const before = gateway.lines.length;
      const { socket, closed } = await acknowledgedSocket(gateway);
      socket.send(JSON.stringify(message));
      expect(await closed).toEqual({
        code: 4400,
        reason: `Unexpected message of type ${type} received`,
      });
      expect(consoleError).not.toHaveBeenCalled();
      const logged = gateway.lines
        .slice(before)
        .filter((line) => line.msg === 'graphql-ws protocol misuse');
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ level: 30, messageType: type, closeCode: 4400 });
      expect((await fetch(gateway.url('/healthz'))).status).toBe(200);
    },
  );

  it('logs a frame over the limit as one structured line, not a raw stack on stderr', async () => {
    const { socket, closed } = await acknowledgedSocket(gateway);
    socket.send('x'.repeat(128 * 1024));
    expect((await closed).code).toBe(1009);
    expect(consoleError).not.toHaveBeenCalled();
  });

  it('closes a socket that sends no connection_init with 4408, and not one that does', async () => {
    const url = gateway.url('/graphql').replace('http', 'ws');
    const silent = new WebSocket(url, 'graphql-transport-ws');
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      silent.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    const { socket } = await acknowledgedSocket(gateway);
    expect(await closed).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.close(1000);
  });

  it('still answers a well-behaved client after the misbehaving ones', async () => {
    const { socket, closed } = await acknowledgedSocket(gateway);
    socket.send(JSON.stringify({ type: 'ping' }));
    const answer = await new Promise<string>((resolve) =>
      socket.once('message', (data: Buffer) => resolve(data.toString())),
    );
    expect(JSON.parse(answer)).toEqual({ type: 'pong' });
    socket.close(1000);
    expect((await closed).code).toBe(1000);
  });
});
