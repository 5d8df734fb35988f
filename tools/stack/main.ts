// `npm run stack`: the distributed mode on one machine. Starts real Kafka, Redis, MongoDB-wire and
// SMTP servers, then every service and the gateway as separate processes; Ctrl-C stops them all.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { startStack, type Stack } from './stack';

async function main() {
  const logDir = join(
    process.env.UNDERDOG_CACHE ?? join(homedir(), '.cache', 'underdog'),
    'stack-logs',
    new Date().toISOString().replace(/[:.]/g, '-'),
  );
  const gatewayPort = process.env.PORT ? Number(process.env.PORT) : 8080;
  let stack: Stack | undefined = undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('stack: stopping every process…');
    await stack?.stop();
    console.log('stack: stopped');
    process.exit(code);
  };
  // `on`, not `once`: wrappers such as tsx and pnpm relay the terminal's Ctrl-C, so a second
  // SIGINT arrives while stopping, and the default action would kill us before the servers stop.
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  // Supervised, a crashed process is started again with a backoff and the stack keeps running,
  // as Kubernetes would; otherwise one crash stops the whole stack.
  const supervise = process.argv.includes('--supervise') || process.env.STACK_SUPERVISE === '1';
  console.log('stack: starting Redis, Kafka, the MongoDB-wire server and the SMTP sink…');
  stack = await startStack({
    logDir,
    gatewayPort,
    supervise,
    onUnexpectedExit: (name, code) => {
      console.error(`stack: ${name} exited unexpectedly (code ${code}); see ${logDir}`);
      if (!supervise) void stop(1);
    },
    onRestart: (instance, delayMs, restart) => {
      console.error(`stack: restarting ${instance} in ${delayMs} ms (restart ${restart})`);
    },
  });
  try {
    await stack.waitUntilReady();
  } catch (error) {
    console.error(`stack: ${error instanceof Error ? error.message : String(error)}`);
    await stop(1);
    return;
  }
  console.log('stack: every process answers /readyz with 200');
  for (const proc of stack.processes) {
    console.log(`  ${proc.name.padEnd(13)} pid ${String(proc.pid).padEnd(8)} ${proc.url}`);
  }
  console.log(
    `  infrastructure: kafka ${stack.infra.kafkaBrokers.join(',')}, ${stack.infra.redisUrl}, ${stack.infra.mongoUrl}, ${stack.infra.smtpUrl}`,
  );
  console.log(`  logs: ${logDir}`);
  if (supervise) console.log('  supervised: a crashed process is restarted with a backoff');
  console.log(`\nGateway: ${stack.gatewayUrl}\n(Ctrl-C stops everything)`);
}

main().catch((error: unknown) => {
  console.error('stack: failed to start:', error);
  process.exit(1);
});
