import { Redis } from 'ioredis';

/**
 * Asks a local Redis (or Sentinel) one question on a connection of its own, closed after: no
 * retries, so a server that is down rejects at once (the callers poll).
 */
export async function askRedis<T>(
  port: number,
  question: (client: Redis) => Promise<T>,
): Promise<T> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await question(client);
  } finally {
    client.disconnect();
  }
}
