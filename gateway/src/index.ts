export { createGatewayApp, type GatewayAppOptions } from './app';
export { createGatewayClients, type GatewayClients } from './clients';
