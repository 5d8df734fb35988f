import { startInfra } from '../index';
import { envNames } from '../test-env';
import { harnessGlobal } from './shared';

/**
 * Starts the real servers once for the whole integration run. Workers are forked after this and
 * inherit process.env, which is how they learn the URLs. The integration and e2e projects both
 * name this setup: in one run the second finds the servers started and shares them.
 */
export default async function globalSetup(): Promise<void> {
  if (harnessGlobal.underdogInfra) return;
  const started = Date.now();
  const infra = await startInfra();
  harnessGlobal.underdogInfra = infra;
  process.env[envNames.redisUrl] = infra.redisUrl;
  process.env[envNames.kafkaBrokers] = infra.kafkaBrokers.join(',');
  process.env[envNames.mongoUrl] = infra.mongoUrl;
  process.env[envNames.smtpUrl] = infra.smtpUrl;
  process.env[envNames.smtpApiUrl] = infra.smtpApiUrl;
  // Printed so that the test output itself shows which real servers were used.
  console.log(
    `\n${infra.describe()}\nharness: all servers ready in ${((Date.now() - started) / 1000).toFixed(1)}s`,
  );
}
