import { probeHttp, probeKafka, probeMongo, probeRedis, probeSmtp } from '../probes';
import { InfraError, waitReady } from '../process';
import type { ServerHandle, ServerName } from '../types';

/** Servers given through the environment instead of started by the harness. */
export interface Overrides {
  redis?: string;
  kafka?: string[];
  mongo?: string;
  smtp?: { url: string; apiUrl: string };
}

const externalTimeoutMs = 20_000;

const variables: Record<ServerName, string> = {
  redis: 'REDIS_URL',
  kafka: 'KAFKA_BROKERS',
  mongo: 'MONGO_URL',
  smtp: 'SMTP_URL and SMTP_SINK_API',
};

function nonEmpty(name: string): string | undefined {
  const value = process.env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

export function readOverrides(): Overrides {
  const overrides: Overrides = {};
  const redis = nonEmpty('REDIS_URL');
  const kafka = nonEmpty('KAFKA_BROKERS');
  const mongo = nonEmpty('MONGO_URL');
  const smtp = nonEmpty('SMTP_URL');
  const smtpApi = nonEmpty('SMTP_SINK_API');
  if (redis !== undefined) overrides.redis = redis;
  if (kafka !== undefined) overrides.kafka = kafka.split(',').map((b) => b.trim());
  if (mongo !== undefined) overrides.mongo = mongo;
  if ((smtp === undefined) !== (smtpApi === undefined)) {
    throw new InfraError('smtp', 'set both SMTP_URL and SMTP_SINK_API, or neither');
  }
  if (smtp !== undefined && smtpApi !== undefined) overrides.smtp = { url: smtp, apiUrl: smtpApi };
  return overrides;
}

function external(name: ServerName, url: string, what: string, apiUrl?: string): ServerHandle {
  return {
    name,
    url,
    apiUrl,
    description: `${what} (external, from the environment) at ${url}`,
    // Not ours to stop.
    stop: () => Promise.resolve(),
  };
}

/** Checks that a server named in the environment answers; a wrong URL fails here, not in a test. */
export async function useExternal(
  name: ServerName,
  overrides: Overrides,
): Promise<ServerHandle | undefined> {
  const check = <T>(probe: () => Promise<T>): Promise<T> =>
    waitReady({
      server: `${name} (external, ${variables[name]})`,
      timeoutMs: externalTimeoutMs,
      probe,
    });
  switch (name) {
    case 'redis': {
      const url = overrides.redis;
      if (url === undefined) return undefined;
      const version = await check(() => probeRedis(url));
      return external(name, url, `redis ${version}`);
    }
    case 'kafka': {
      const brokers = overrides.kafka;
      if (brokers === undefined) return undefined;
      await check(() => probeKafka(brokers));
      return external(name, brokers.join(','), 'kafka');
    }
    case 'mongo': {
      const url = overrides.mongo;
      if (url === undefined) return undefined;
      const version = await check(() => probeMongo(url));
      return external(name, url, `mongo ${version}`);
    }
    case 'smtp': {
      const smtp = overrides.smtp;
      if (smtp === undefined) return undefined;
      const { hostname, port } = new URL(smtp.url);
      await check(() => probeSmtp(hostname, Number(port || 25)));
      await check(() => probeHttp(`${smtp.apiUrl.replace(/\/+$/, '')}/messages`));
      return external(name, smtp.url, 'smtp sink', smtp.apiUrl);
    }
  }
}
