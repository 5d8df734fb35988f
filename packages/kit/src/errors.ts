/**
 * Stable error codes shared by every edge (REST status, GraphQL `extensions.code`, Connect code,
 * `/ws` error messages). Domain code throws `AppError`; the edges only translate.
 */
export const errorCodes = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof errorCodes;

export interface AppErrorOptions {
  /** Which failure of its kind, UPPER_SNAKE_CASE (e.g. EMAIL_TAKEN); clients may branch on it. */
  reason?: string;
  cause?: unknown;
  /** For RATE_LIMITED: when the client may try again; edges send it as `Retry-After`. */
  retryAfterSeconds?: number;
}

export class AppError extends Error {
  readonly reason: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.reason = options.reason;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): number {
    return errorCodes[this.code];
  }

  /** The code clients see: the specific reason when there is one, else the kind. */
  get publicCode(): string {
    return this.reason ?? this.code;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
