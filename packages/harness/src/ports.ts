import { createServer } from 'node:net';

/**
 * Ports handed out by this process. The kernel may offer a just-closed port again, and servers
 * started in parallel each ask for ports before any of them binds.
 */
const handedOut = new Set<number>();

function askKernel(): Promise<number> {
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

/**
 * An unused loopback port. Another process could still take it before the server binds it; the
 * window is small and a clash shows up as a startup failure that names the server and its log.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await askKernel();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('freePort: the kernel keeps offering ports that were already handed out');
}
