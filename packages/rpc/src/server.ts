import type { ConnectRouter } from '@connectrpc/connect';
import { expressConnectMiddleware } from '@connectrpc/connect-express';
import type { Handler } from 'express';
import { appErrorInterceptor } from './app-errors';
import { adoptRequestId } from './request-id';
import { requireServiceCredential, type ServiceCredentialCheck } from './service-credentials';

/**
 * A service's Connect handlers, e.g. `(router) => router.service(TournamentService, impl)`.
 * The same function is served over HTTP in distributed mode and called in-process in standalone
 * mode, so a service defines its routes once.
 */
export type RegisterRoutes = (router: ConnectRouter) => void;

export interface RpcRouterOptions {
  /**
   * The service credential every call must carry (`requireServiceCredential`): served over the
   * network, a service answers only callers holding `SERVICE_TOKEN_SECRET`.
   */
  readonly credentials: ServiceCredentialCheck;
}

/**
 * Express middleware serving the registered Connect handlers (distributed mode: every service
 * on its own port). Every call is refused with `Unauthenticated` unless it carries a valid
 * service credential; requests for other paths (`/healthz`, `/readyz`, `/metrics`) fall through
 * to the next middleware untouched. Mount it before any JSON body parser: Connect reads the raw
 * body.
 */
export function createRpcRouter(register: RegisterRoutes, options: RpcRouterOptions): Handler {
  return expressConnectMiddleware({
    routes: register,
    interceptors: [
      adoptRequestId,
      requireServiceCredential(options.credentials),
      appErrorInterceptor,
    ],
  });
}
