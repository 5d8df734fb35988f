// Connect-RPC wiring shared by every service and the gateway. Services register their handlers
// once (`RegisterRoutes`); the run mode decides whether callers reach them over HTTP or in-process.
export { createRpcRouter } from './server';
export type { RegisterRoutes } from './server';
export {
  createHttpTransport,
  createInProcessTransport,
  createServiceClient,
  createTransport,
} from './transport';
export type { RpcEndpoint, TransportOptions } from './transport';
export { ERROR_REASON_HEADER, errorReason, isRpcError, rpcError } from './errors';
export { appErrorFromRpc, appErrorInterceptor } from './app-errors';
export { adoptRequestId, sendRequestId } from './request-id';
export type { RpcErrorOptions } from './errors';

export { Code, ConnectError, createClient } from '@connectrpc/connect';
export type {
  CallOptions,
  Client,
  ConnectRouter,
  HandlerContext,
  Interceptor,
  ServiceImpl,
  Transport,
} from '@connectrpc/connect';
