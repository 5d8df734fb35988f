// Usage: tsx packages/harness/src/cli.ts up [redis] [kafka] [mongo] [smtp]
// Starts the servers (all unless some are named), prints KEY=value lines on stdout and keeps
// them running until SIGINT or SIGTERM.
import { startInfra } from './index';
import type { Infra, StartOptions } from './types';
import { errorMessage } from './util';

const names = ['redis', 'kafka', 'mongo', 'smtp'] as const;

function options(args: string[]): StartOptions {
  const unknown = args.filter((a) => !(names as readonly string[]).includes(a));
  if (unknown.length > 0) throw new Error(`unknown server(s): ${unknown.join(', ')}`);
  if (args.length === 0) return {};
  return Object.fromEntries(names.map((n) => [n, args.includes(n)])) as StartOptions;
}

function printUrls(infra: Infra): void {
  const lines = {
    REDIS_URL: infra.redisUrl,
    KAFKA_BROKERS: infra.kafkaBrokers.join(','),
    MONGO_URL: infra.mongoUrl,
    SMTP_URL: infra.smtpUrl,
    SMTP_SINK_API: infra.smtpApiUrl,
  };
  for (const [key, value] of Object.entries(lines)) {
    if (value !== '') console.log(`${key}=${value}`);
  }
}

function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolveSignal) => {
    // Signal listeners do not keep node alive; the servers are unref'd children.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    const done = (signal: NodeJS.Signals): void => {
      clearInterval(keepAlive);
      resolveSignal(signal);
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

async function up(args: string[]): Promise<void> {
  const infra = await startInfra(options(args));
  console.error(infra.describe());
  printUrls(infra);
  const signal = await untilSignal();
  console.error(`harness: ${signal}, stopping`);
  await infra.stop();
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command !== 'up') {
    console.error('usage: tsx packages/harness/src/cli.ts up [redis] [kafka] [mongo] [smtp]');
    process.exitCode = 2;
    return;
  }
  await up(rest);
}

main().catch((error: unknown) => {
  console.error(errorMessage(error));
  process.exitCode = 1;
});
