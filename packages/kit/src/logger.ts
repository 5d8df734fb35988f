import pino, { type Logger } from 'pino';
import { currentRequestId } from './request-context';

export type { Logger };

/**
 * Paths that must never reach a log line. Passwords, verification codes and tokens, session ids
 * and cookies are secrets even when they are only "debug" output. They are named exactly: a bare
 * `code` is an error's code (`ECONNREFUSED`, `11000`, `EMAIL_TAKEN`) and must stay readable; the
 * only `code` that is a secret is the one in a verify-email request body.
 */
export const redactedPaths = [
  'password',
  '*.password',
  'currentPassword',
  '*.currentPassword',
  'newPassword',
  '*.newPassword',
  'token',
  '*.token',
  'verificationCode',
  '*.verificationCode',
  'verificationToken',
  '*.verificationToken',
  'body.code',
  'req.body.code',
  'request.body.code',
  'sessionId',
  '*.sessionId',
  'req.headers.cookie',
  'req.headers.authorization',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'headers.authorization',
];

export interface LoggerOptions {
  service: string;
  level: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read what was logged. */
  destination?: pino.DestinationStream;
}

export function createLogger({ service, level, destination }: LoggerOptions): Logger {
  return pino(
    {
      level,
      base: { service },
      redact: { paths: redactedPaths, censor: '[redacted]' },
      // Every line written while a request is handled carries its id (see request-context.ts).
      mixin: () => {
        const requestId = currentRequestId();
        return requestId === undefined ? {} : { requestId };
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
