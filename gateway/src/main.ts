import {
  ComponentGroup,
  ConfigError,
  createLogger,
  createMetricsRegistry,
  runUntilSignal,
  type Component,
} from '@underdog/kit';
import { createDistributedInfrastructure } from '@underdog/platform';
import { createGateway } from './app';
import { createGatewayClients } from './clients';
import { gatewayConfig } from './config';

/** Distributed mode: the gateway as its own process, calling the services over HTTP. */
async function main() {
  let config: ReturnType<typeof gatewayConfig>;
  try {
    config = gatewayConfig(process.env);
  } catch (error) {
    console.error(`gateway: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(78);
  }
  const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  const registry = createMetricsRegistry('gateway');
  const clients = createGatewayClients({
    auth: { mode: 'http', baseUrl: config.AUTH_URL },
    tournament: { mode: 'http', baseUrl: config.TOURNAMENT_URL },
    game: { mode: 'http', baseUrl: config.GAME_ENGINE_URL },
    ads: { mode: 'http', baseUrl: config.ADS_URL },
    notification: { mode: 'http', baseUrl: config.NOTIFICATION_URL },
  });
  const components: Component[] = [];
  const group = new ComponentGroup(logger, components);
  try {
    const infrastructure = await createDistributedInfrastructure(
      {
        service: 'gateway',
        instanceId: config.INSTANCE_ID,
        needs: ['store', 'bus'],
        redisUrl: config.REDIS_URL,
        kafkaBrokers: config.KAFKA_BROKERS,
        mongoDb: 'unused',
        registry,
      },
      logger,
    );
    const gateway = await createGateway({
      logger,
      registry,
      clients,
      store: infrastructure.store,
      bus: infrastructure.bus,
      instanceId: config.INSTANCE_ID,
      settings: config.settings,
      readiness: () => group.readiness(),
    });
    components.push(
      ...infrastructure.components,
      gateway.listen({ port: config.PORT, host: config.HOST, logger }),
    );
  } catch (error) {
    logger.fatal({ err: error }, 'could not create the gateway');
    process.exit(error instanceof ConfigError ? 78 : 1);
  }
  await runUntilSignal(group, logger);
}

void main();
