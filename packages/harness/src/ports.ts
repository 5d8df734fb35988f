import { createServer } from 'node:net';

/**
 * Asks the kernel for an unused loopback port. Another process could take it before the server
 * binds it; the window is small and a clash shows up as a clear startup failure.
 */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('freePort: the kernel returned no TCP address'));
        return;
      }
      server.close(() => resolvePort(address.port));
    });
  });
}
