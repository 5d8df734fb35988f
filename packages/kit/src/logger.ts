import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Paths that must never reach a log line. Passwords, verification codes and tokens, session ids
 * and cookies are secrets even when they are only "debug" output.
 */
export const redactedPaths = [
  'password',
  '*.password',
  'currentPassword',
  '*.currentPassword',
  'newPassword',
  '*.newPassword',
  'code',
  '*.code',
  'token',
  '*.token',
  '*.verificationCode',
  '*.verificationToken',
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
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
