import { parseEnv, type Environment } from '@underdog/kit';

/** The ads service's own variables (the common ones are read by @underdog/platform). */
export function adsConfig(env: Environment) {
  return parseEnv({}, env);
}

export type AdsConfig = ReturnType<typeof adsConfig>;
