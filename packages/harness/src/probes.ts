import { Kafka, logLevel } from 'kafkajs';
import Redis from 'ioredis';
import mongoose from 'mongoose';
import { connect } from 'node:net';

const attemptTimeoutMs = 2_000;

/** Connects, reads INFO and returns the server version. */
export async function probeRedis(url: string): Promise<string> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: attemptTimeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // connect() rejects with a vague "Connection is closed"; the event carries the real cause.
  let cause: Error | undefined;
  client.on('error', (error: Error) => (cause ??= error));
  try {
    await client.connect();
    const info = await client.info('server');
    return /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
  } catch (error) {
    throw cause ?? error;
  } finally {
    client.disconnect();
  }
}

/** Ready means the broker serves metadata to an admin client, not merely that the port is open. */
export async function probeKafka(brokers: string[]): Promise<void> {
  const kafka = new Kafka({
    clientId: 'underdog-harness-probe',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: attemptTimeoutMs,
    requestTimeout: attemptTimeoutMs * 2,
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.listTopics();
  } finally {
    await admin.disconnect();
  }
}

/** Pings and returns the version the server reports as a MongoDB. */
export async function probeMongo(url: string): Promise<string> {
  const connection = mongoose.createConnection(url, {
    serverSelectionTimeoutMS: attemptTimeoutMs,
    connectTimeoutMS: attemptTimeoutMs,
  });
  try {
    await connection.asPromise();
    const admin = connection.db?.admin();
    if (admin === undefined) throw new Error('connected without a database handle');
    await admin.ping();
    const info = await admin.command({ buildInfo: 1 });
    return typeof info.version === 'string' ? info.version : 'unknown';
  } finally {
    await connection.close();
  }
}

/** Waits for the SMTP greeting, so the probe proves an SMTP server and not just an open port. */
export function probeSmtp(host: string, port: number): Promise<void> {
  return new Promise((resolveProbe, reject) => {
    const socket = connect({ host, port });
    const fail = (error: Error): void => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(attemptTimeoutMs, () => fail(new Error('no SMTP greeting')));
    socket.once('error', fail);
    socket.once('data', (chunk: Buffer) => {
      const greeting = chunk.toString('utf8');
      socket.end('QUIT\r\n');
      if (greeting.startsWith('220')) resolveProbe();
      else fail(new Error(`unexpected SMTP greeting: ${greeting.trim()}`));
    });
  });
}

export async function probeHttp(url: string): Promise<void> {
  const response = await fetch(url, { signal: AbortSignal.timeout(attemptTimeoutMs) });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
}
