import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { AppError, isAppError, type ErrorCode } from '@underdog/kit';
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
  [Code.Aborted]: 'CONFLICT',
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
    throw error;
  }
};

/**
 * The caller's side: an RPC failure back as the `AppError` the service threw, so edges (REST,
 * GraphQL, /ws) translate one error type. Unknown failures become INTERNAL without their text.
 */
export function appErrorFromRpc(error: unknown): AppError {
  if (isAppError(error)) return error;
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

export { ERROR_REASON_HEADER };
