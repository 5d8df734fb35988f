import { createLogger, runUntilSignal } from '@underdog/kit';
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
  const { group } = await createStandalone({
    logger,
    env: process.env,
    port: config.PORT,
    host: config.HOST,
    nodeEnv: config.NODE_ENV,
  });
  await runUntilSignal(group, logger);
}

void main();
