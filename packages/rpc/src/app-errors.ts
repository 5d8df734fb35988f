import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { AppError, isAppError, isStoreUnavailable, type ErrorCode } from '@underdog/kit';
import { ERROR_REASON_HEADER, errorReason, rpcError } from './errors';

const toConnectCode: Record<ErrorCode, Code> = {
  BAD_REQUEST: Code.InvalidArgument,
  UNAUTHENTICATED: Code.Unauthenticated,
  FORBIDDEN: Code.PermissionDenied,
  NOT_FOUND: Code.NotFound,
  CONFLICT: Code.AlreadyExists,
  RATE_LIMITED: Code.ResourceExhausted,
  UNAVAILABLE: Code.Unavailable,
  INTERNAL: Code.Internal,
};

const fromConnectCode: Partial<Record<Code, ErrorCode>> = {
  [Code.InvalidArgument]: 'BAD_REQUEST',
  [Code.OutOfRange]: 'BAD_REQUEST',
  [Code.Unauthenticated]: 'UNAUTHENTICATED',
  [Code.PermissionDenied]: 'FORBIDDEN',
  [Code.NotFound]: 'NOT_FOUND',
  [Code.AlreadyExists]: 'CONFLICT',
  [Code.FailedPrecondition]: 'CONFLICT',
  // Our servers never answer Aborted (see toConnectCode): the Node transport reports a reset
  // connection with it, which is a failure to reach the service, not a conflict.
  [Code.Aborted]: 'UNAVAILABLE',
  [Code.ResourceExhausted]: 'RATE_LIMITED',
  [Code.Unavailable]: 'UNAVAILABLE',
  [Code.DeadlineExceeded]: 'UNAVAILABLE',
};

/**
 * Server interceptor: domain code throws `AppError`; callers receive the matching Connect code
 * with the reason in the `underdog-error-reason` header and the message unchanged.
 */
export const appErrorInterceptor: Interceptor = (next) => async (request) => {
  try {
    return await next(request);
  } catch (error) {
    if (isAppError(error)) {
      throw rpcError(toConnectCode[error.code], error.message, {
        ...(error.reason === undefined ? {} : { reason: error.reason }),
        cause: error,
      });
    }
    // A service's Redis failing over (issue 29): a retryable Unavailable, not Internal.
    if (isStoreUnavailable(error)) {
      throw rpcError(Code.Unavailable, 'Service unavailable, try again', { cause: error });
    }
    throw error;
  }
};

/**
 * The caller's side: an RPC failure back as the `AppError` the service threw, so edges (REST,
 * GraphQL, /ws) translate one error type. Unknown failures become INTERNAL without their text.
 */
export function appErrorFromRpc(error: unknown): AppError {
  if (isAppError(error)) return error;
  if (error instanceof ConnectError && isConnectionFailure(error)) {
    return new AppError('UNAVAILABLE', 'Service unavailable, try again', { cause: error });
  }
  if (error instanceof ConnectError) {
    const code = fromConnectCode[error.code];
    if (code) {
      const reason = errorReason(error);
      return new AppError(code, error.rawMessage, {
        ...(reason === undefined ? {} : { reason }),
        cause: error,
      });
    }
  }
  return new AppError('INTERNAL', 'Internal server error', { cause: error });
}

/** Node's codes for a connection that failed or was cut before the answer came. */
const connectionFailureCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ERR_STREAM_DESTROYED',
]);

/**
 * Whether the call failed on the way, not in the service: the server hung up or reset the
 * connection (a restarting replica). The Node transport reports "socket hang up" as Internal,
 * which would otherwise reach the client as a 500 instead of a retryable 503.
 */
function isConnectionFailure(error: ConnectError): boolean {
  // Duck-typed, not `instanceof Error`: Node's own errors may come from another realm.
  let cause = error.cause as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; typeof cause === 'object' && cause !== null && depth < 5; depth += 1) {
    const { code, message } = cause;
    if (
      (typeof code === 'string' && connectionFailureCodes.has(code)) ||
      message === 'socket hang up'
    ) {
      return true;
    }
    cause = cause.cause as typeof cause;
  }
  return false;
}

export { ERROR_REASON_HEADER };
