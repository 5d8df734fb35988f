import { envFields, parseEnv, type Environment } from '@underdog/kit';

/** The gateway's variables in distributed mode: where each service answers Connect-RPC. */
export function gatewayConfig(env: Environment) {
  return parseEnv(
    {
      PORT: envFields.port(8080),
      HOST: envFields.host(),
      LOG_LEVEL: envFields.logLevel(),
      NODE_ENV: envFields.nodeEnv(),
      TOURNAMENT_URL: envFields.url(),
    },
    env,
  );
}

export type GatewayConfig = ReturnType<typeof gatewayConfig>;
