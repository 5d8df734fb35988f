import { parseEnv, type Environment } from '@underdog/kit';

/** The auth service's own variables (the common ones are read by @underdog/platform). */
export function authConfig(env: Environment) {
  return parseEnv({}, env);
}

export type AuthConfig = ReturnType<typeof authConfig>;
