import type { Interceptor } from '@connectrpc/connect';
import {
  REQUEST_ID_HEADER,
  acceptRequestId,
  currentRequestId,
  runWithRequestId,
} from '@underdog/kit';

/** Client side: the current request's id goes along in `x-request-id`. */
export const sendRequestId: Interceptor = (next) => (request) => {
  const requestId = currentRequestId();
  if (requestId !== undefined && !request.header.has(REQUEST_ID_HEADER)) {
    request.header.set(REQUEST_ID_HEADER, requestId);
  }
  return next(request);
};

/**
 * Server side: the handler runs with the caller's request id (a sane one; else a new id), so
 * the service's log lines and the events it publishes carry the id of the call that caused them.
 */
export const adoptRequestId: Interceptor = (next) => (request) =>
  runWithRequestId(acceptRequestId(request.header.get(REQUEST_ID_HEADER)), () => next(request));
