import type { ConnectRouter } from '@connectrpc/connect';
import { expressConnectMiddleware } from '@connectrpc/connect-express';
import type { Handler } from 'express';
import { appErrorInterceptor } from './app-errors';
import { adoptRequestId } from './request-id';

/**
 * A service's Connect handlers, e.g. `(router) => router.service(TournamentService, impl)`.
 * The same function is served over HTTP in distributed mode and called in-process in standalone
 * mode, so a service defines its routes once.
 */
export type RegisterRoutes = (router: ConnectRouter) => void;

/**
 * Express middleware serving the registered Connect handlers (distributed mode: every service
 * on its own port). Requests for other paths fall through to the next middleware, so it can sit
 * beside `/_health` and friends. Mount it before any JSON body parser: Connect reads the raw body.
 */
export function createRpcRouter(register: RegisterRoutes): Handler {
  return expressConnectMiddleware({
    routes: register,
    interceptors: [adoptRequestId, appErrorInterceptor],
  });
}
