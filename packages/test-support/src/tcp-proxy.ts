import { createServer, connect, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real server, which a test cuts to make that server unreachable
 * without touching it (other tests share the server): `cut()` drops every open connection and
 * refuses new ones until `restore()`.
 */
export interface TcpProxy {
  /** The proxy's loopback port: point the client here instead of at the server. */
  readonly port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let open = true;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A dropped connection errors on both sides; the client sees it through its own socket.
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    port: address.port,
    cut: () => {
      open = false;
      for (const socket of sockets) socket.destroy();
    },
    restore: () => {
      open = true;
    },
    close: async () => {
      open = false;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
