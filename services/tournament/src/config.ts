import { parseEnv, type Environment } from '@underdog/kit';

/** The tournament service's own variables (the common ones are read by @underdog/platform). */
export function tournamentConfig(env: Environment) {
  return parseEnv({}, env);
}

export type TournamentConfig = ReturnType<typeof tournamentConfig>;
