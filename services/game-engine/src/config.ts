import { parseEnv, type Environment } from '@underdog/kit';

/** The game-engine service's own variables (the common ones are read by @underdog/platform). */
export function gameEngineConfig(env: Environment) {
  return parseEnv({}, env);
}

export type GameEngineConfig = ReturnType<typeof gameEngineConfig>;
