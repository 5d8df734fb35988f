// Connect-RPC wiring shared by every service and the gateway. Services register their handlers
// once (`RegisterRoutes`); the run mode decides whether callers reach them over HTTP or in-process.
export { createRpcRouter } from './server';
export type { RegisterRoutes, RpcRouterOptions } from './server';
export {
  SERVICE_CREDENTIAL_REFUSED,
  SERVICE_TOKEN_HEADER,
  SERVICE_TOKEN_SECRET_MIN_LENGTH,
  SERVICE_TOKEN_TTL_SECONDS,
  procedureOf,
  requireServiceCredential,
  serviceCredential,
  signServiceToken,
  verifyServiceToken,
} from './service-credentials';
export type {
  RefusalReason,
  ServiceCaller,
  ServiceCredentialCheck,
  TokenCheck,
} from './service-credentials';
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
