import {
  createClient,
  createRouterTransport,
  type Client,
  type Interceptor,
  type Transport,
} from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import type { DescService } from '@bufbuild/protobuf';
import { appErrorInterceptor } from './app-errors';
import { adoptRequestId, sendRequestId } from './request-id';
import type { RegisterRoutes } from './server';
import { serviceCredential, type ServiceCaller } from './service-credentials';

export interface TransportOptions {
  /**
   * Client interceptors besides `sendRequestId`, which every transport has (and, over HTTP,
   * the service credential's, which runs before these).
   */
  readonly interceptors?: Interceptor[];
  /** Deadline for calls that set no `timeoutMs` of their own. */
  readonly defaultTimeoutMs?: number;
}

/**
 * Calls a service over the network (distributed mode). HTTP/1.1 because the services serve
 * Connect from express, which speaks only HTTP/1.1; unary and server-streaming calls need no more.
 * Every call carries `caller`'s service credential (a token signed with `SERVICE_TOKEN_SECRET`),
 * without which the service refuses it.
 */
export function createHttpTransport(
  baseUrl: string,
  caller: ServiceCaller,
  options: TransportOptions = {},
): Transport {
  return createConnectTransport({
    httpVersion: '1.1',
    baseUrl,
    ...options,
    // The credential first, so the caller's own interceptors see (and tests may alter) it.
    interceptors: [sendRequestId, serviceCredential(caller), ...(options.interceptors ?? [])],
  });
}

/**
 * Calls a service's handlers in this process (standalone mode). Requests and responses still go
 * through the Connect protocol and the binary wire format, so errors, deadlines and message
 * copies behave exactly as over HTTP and no caller can mutate the service's objects. No service
 * credential: the call never leaves the process, so there is no one else to keep out.
 */
export function createInProcessTransport(
  register: RegisterRoutes,
  options: TransportOptions = {},
): Transport {
  return createRouterTransport(register, {
    transport: { ...options, interceptors: withRequestId(options.interceptors) },
    router: { interceptors: [adoptRequestId, appErrorInterceptor] },
  });
}

function withRequestId(interceptors: Interceptor[] = []): Interceptor[] {
  return [sendRequestId, ...interceptors];
}

/** Where a service is reached: the run mode's choice, made once in configuration. */
export type RpcEndpoint =
  | { readonly mode: 'http'; readonly baseUrl: string; readonly caller: ServiceCaller }
  | { readonly mode: 'in-process'; readonly routes: RegisterRoutes };

export function createTransport(endpoint: RpcEndpoint, options: TransportOptions = {}): Transport {
  switch (endpoint.mode) {
    case 'http':
      return createHttpTransport(endpoint.baseUrl, endpoint.caller, options);
    case 'in-process':
      return createInProcessTransport(endpoint.routes, options);
  }
}

/**
 * A typed client for `service`, whichever way it is reached, so calling code is the same in
 * both run modes.
 */
export function createServiceClient<T extends DescService>(
  service: T,
  endpoint: RpcEndpoint,
  options: TransportOptions = {},
): Client<T> {
  return createClient(service, createTransport(endpoint, options));
}
