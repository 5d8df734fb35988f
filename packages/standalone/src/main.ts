import { ConfigError, createLogger, runUntilSignal, type ComponentGroup } from '@underdog/kit';
import { standaloneConfig } from './config';
import { createStandalone } from './standalone';

async function main() {
  let config: ReturnType<typeof standaloneConfig>;
  try {
    config = standaloneConfig(process.env);
  } catch (error) {
    console.error(`standalone: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(78);
  }
  const logger = createLogger({ service: 'underdog', level: config.LOG_LEVEL });
  let group: ComponentGroup;
  try {
    ({ group } = await createStandalone({
      logger,
      env: process.env,
      port: config.PORT,
      host: config.HOST,
      nodeEnv: config.NODE_ENV,
    }));
  } catch (error) {
    // The services' and the gateway's own variables are parsed while they are created.
    logger.fatal({ err: error }, 'could not create the standalone game');
    process.exit(error instanceof ConfigError ? 78 : 1);
  }
  await runUntilSignal(group, logger);
}

void main();
