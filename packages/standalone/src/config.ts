import { envFields, parseEnv, type Environment } from '@underdog/kit';

export function standaloneConfig(env: Environment) {
  return parseEnv(
    {
      PORT: envFields.port(8080),
      HOST: envFields.host(),
      LOG_LEVEL: envFields.logLevel(),
      NODE_ENV: envFields.nodeEnv(),
    },
    env,
  );
}
