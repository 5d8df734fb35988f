import { ConfigError, parseEnv, type Environment } from '@underdog/kit';
import { z } from 'zod';

export const defaultMailFrom = 'Underdog <no-reply@underdog.local>';
export const defaultPublicUrl = 'http://localhost:8080';

const shape = {
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  MAIL_FROM: z
    .string()
    .trim()
    .regex(/@/, 'must contain an e-mail address, e.g. "Underdog <no-reply@example.com>"')
    .default(defaultMailFrom),
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .default(defaultPublicUrl)
    .transform((url) => url.replace(/\/+$/, '')),
};

/** The notification service's own variables (the common ones are read by @underdog/platform). */
export function notificationConfig(env: Environment) {
  const parsed = parseEnv(shape, env);
  // NODE_ENV itself is validated with the common variables; reading it here again through zod
  // would report a bad value twice. Only the exact value 'production' changes anything here.
  const production = env.NODE_ENV === 'production';
  if (production && parsed.SMTP_URL === undefined) {
    throw new ConfigError([
      'SMTP_URL: required when NODE_ENV=production; without it e-mails would only be kept in ' +
        'memory and never reach anyone (not set)',
    ]);
  }
  return {
    /** Where e-mails go; absent (development, standalone): the in-memory outbox. */
    smtpUrl: parsed.SMTP_URL,
    mailFrom: parsed.MAIL_FROM,
    /** The web app's address, without a trailing slash: the base of links in e-mails. */
    publicUrl: parsed.PUBLIC_URL,
  };
}

export type NotificationConfig = ReturnType<typeof notificationConfig>;
