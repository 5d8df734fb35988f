import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { isWebRoot } from '@underdog/gateway';
import { ConfigError, createLogger, runUntilSignal, type Environment } from '@underdog/kit';
import pretty from 'pino-pretty';
import { standaloneConfig } from './config';
import { createStandalone, listeningUrl, type Standalone } from './standalone';

/**
 * The standalone game has no stored data between runs, so without ADMIN_EMAIL/ADMIN_PASSWORD it
 * makes up an admin for this run and prints the credentials (a game night needs an admin).
 */
function withAdmin(env: Environment): { env: Environment; generated: boolean } {
  if (env.ADMIN_EMAIL || env.ADMIN_PASSWORD) return { env, generated: false };
  return {
    env: {
      ...env,
      ADMIN_EMAIL: 'admin@underdog.local',
      // A letter and a digit are guaranteed, as the password rules require.
      ADMIN_PASSWORD: `a1${randomBytes(12).toString('base64url')}`,
    },
    generated: true,
  };
}

/**
 * The web app to serve: WEB_ROOT, else the repository's web/dist (this file runs as
 * apps/standalone/dist/main.js, or from src under tsx). Without a build the API still runs.
 */
function webRootOf(configured: string | undefined): string | undefined {
  const webRoot = configured ?? join(__dirname, '..', '..', '..', 'web', 'dist');
  return isWebRoot(webRoot) ? webRoot : undefined;
}

async function main() {
  let config: ReturnType<typeof standaloneConfig>;
  try {
    config = standaloneConfig(process.env);
  } catch (error) {
    console.error(`standalone: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(78);
  }
  const readable =
    config.LOG_FORMAT === 'pretty' || (config.LOG_FORMAT === 'auto' && process.stdout.isTTY);
  const logger = createLogger({
    service: 'underdog',
    level: config.LOG_LEVEL,
    // Synchronous, as pino's own stdout is: the last lines before an exit are not lost.
    destination: readable
      ? pretty({
          colorize: true,
          singleLine: true,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname',
          sync: true,
        })
      : undefined,
  });
  const { env, generated } = withAdmin(process.env);
  let standalone: Standalone;
  try {
    standalone = await createStandalone({
      logger,
      env,
      port: config.PORT,
      host: config.HOST,
      nodeEnv: config.NODE_ENV,
      webRoot: webRootOf(config.WEB_ROOT),
      demo:
        config.DEMO === 'on'
          ? {
              bots: config.DEMO_BOTS,
              admin: { email: env.ADMIN_EMAIL ?? '', password: env.ADMIN_PASSWORD ?? '' },
            }
          : undefined,
    });
  } catch (error) {
    // The services' and the gateway's own variables are parsed while they are created.
    logger.fatal({ err: error }, 'could not create the standalone game');
    process.exit(error instanceof ConfigError ? 78 : 1);
  }
  await runUntilSignal(standalone.group, logger);
  const url = listeningUrl(config.HOST, standalone.http.port());
  const lines = [`Underdog is running at ${url} (Ctrl-C stops it)`];
  if (generated) {
    lines.push(`Admin for this run: ${env.ADMIN_EMAIL} / ${env.ADMIN_PASSWORD}`);
    lines.push('(set ADMIN_EMAIL and ADMIN_PASSWORD to choose your own)');
  }
  console.log(`\n${lines.join('\n')}\n`);
}

void main();
