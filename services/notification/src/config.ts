import { ConfigError, parseEnv, type Environment } from '@underdog/kit';
import { z } from 'zod';

export const defaultMailFrom = 'Underdog <no-reply@underdog.local>';
export const defaultPublicUrl = 'http://localhost:8080';

/**
 * The base of the links in e-mails, without a trailing slash: a URL, or a function that gives it
 * when a link is made (the standalone game, whose address is known only once it listens).
 */
export type PublicUrl = string | (() => string);

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

export interface NotificationConfig {
  /** Where e-mails go; absent (development, standalone): the in-memory outbox. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** The web app's address: the base of links in e-mails. */
  publicUrl: PublicUrl;
  /** Whether PUBLIC_URL was set (else `publicUrl` is the default, which a host may replace). */
  publicUrlConfigured: boolean;
}

/** The notification service's own variables (the common ones are read by @underdog/platform). */
export function notificationConfig(env: Environment): NotificationConfig {
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
    smtpUrl: parsed.SMTP_URL,
    mailFrom: parsed.MAIL_FROM,
    publicUrl: parsed.PUBLIC_URL,
    publicUrlConfigured: env.PUBLIC_URL !== undefined && env.PUBLIC_URL !== '',
  };
}
