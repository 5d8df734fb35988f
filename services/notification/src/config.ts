import { parseEnv, type Environment } from '@underdog/kit';

/** The notification service's own variables (the common ones are read by @underdog/platform). */
export function notificationConfig(env: Environment) {
  return parseEnv({}, env);
}

export type NotificationConfig = ReturnType<typeof notificationConfig>;
