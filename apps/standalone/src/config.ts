import { envFields, parseEnv, type Environment } from '@underdog/kit';
import { z } from 'zod';

export function standaloneConfig(env: Environment) {
  return parseEnv(
    {
      PORT: envFields.port(8080),
      HOST: envFields.host(),
      LOG_LEVEL: envFields.logLevel(),
      /** `auto`: readable lines when stdout is a terminal, JSON lines otherwise (piped). */
      LOG_FORMAT: z.enum(['auto', 'pretty', 'json']).default('auto'),
      NODE_ENV: envFields.nodeEnv(),
      /** The built web app to serve at `/`; default: the repository's web/dist. */
      WEB_ROOT: z.string().min(1).optional(),
      /** `off` disables the demo (bots and demo tournaments). */
      DEMO: z.enum(['on', 'off']).default('on'),
      /** How many bot players the demo signs up. */
      DEMO_BOTS: z.coerce.number().int().min(0).max(5000).default(200),
    },
    env,
  );
}
