export { createGateway, type Gateway, type GatewayOptions } from './app';
export { createGatewayClients, type GatewayClients, type GatewayEndpoints } from './clients';
export { gatewaySettings, type GatewaySettings } from './config';
export { Games, type VoteInput } from './games';
export { FairPlaySignals } from './fair-play-signals';
export { isWebRoot } from './web-app';
export type { RequestOrigin } from './session';
export {
  createGatewayModule,
  gatewayService,
  type GatewayAdapters,
  type GatewayModule,
  type GatewayModuleConfig,
} from './module';
