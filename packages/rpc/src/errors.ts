import { Code, ConnectError } from '@connectrpc/connect';

/**
 * Response header carrying the stable, machine-readable reason of an error (e.g.
 * `TOURNAMENT_NOT_FOUND`). The Connect code says what kind of failure it was; the reason says
 * which one, so the gateway can map it to the exact status and message the client expects
 * without parsing error text.
 */
export const ERROR_REASON_HEADER = 'underdog-error-reason';

export interface RpcErrorOptions {
  /** Stable reason code; UPPER_SNAKE_CASE by convention. */
  readonly reason?: string;
  readonly cause?: unknown;
}

/** An error for a handler to throw; it reaches the caller with the same code and reason. */
export function rpcError(code: Code, message: string, options: RpcErrorOptions = {}): ConnectError {
  const metadata: Record<string, string> =
    options.reason === undefined ? {} : { [ERROR_REASON_HEADER]: options.reason };
  return new ConnectError(message, code, metadata, undefined, options.cause);
}

/** The reason an RPC failed with, if the error came from `rpcError` with one. */
export function errorReason(error: unknown): string | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  return error.metadata.get(ERROR_REASON_HEADER) ?? undefined;
}

/** Whether `error` is an RPC error, optionally of one code, e.g. `isRpcError(e, Code.NotFound)`. */
export function isRpcError(error: unknown, code?: Code): error is ConnectError {
  return error instanceof ConnectError && (code === undefined || error.code === code);
}
