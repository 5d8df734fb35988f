import {
  ComponentGroup,
  createLogger,
  createMetricsRegistry,
  httpServerComponent,
  runUntilSignal,
  type Component,
} from '@underdog/kit';
import { createGatewayApp } from './app';
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
    tournament: { mode: 'http', baseUrl: config.TOURNAMENT_URL },
  });
  const components: Component[] = [];
  const group = new ComponentGroup(logger, components);
  const app = createGatewayApp({ logger, registry, clients, readiness: () => group.readiness() });
  components.push(httpServerComponent(app, { port: config.PORT, host: config.HOST, logger }));
  await runUntilSignal(group, logger);
}

void main();
