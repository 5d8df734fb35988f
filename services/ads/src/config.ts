import { parseEnv, type Environment } from '@underdog/kit';
import { z } from 'zod';

/** The ads service's own variables (the common ones are read by @underdog/platform). */
export function adsConfig(env: Environment) {
  const parsed = parseEnv(
    {
      ADS_CATALOG_RESYNC_INTERVAL_MS: z.coerce.number().int().min(100).default(30_000),
    },
    env,
  );
  return {
    catalog: { resyncIntervalMs: parsed.ADS_CATALOG_RESYNC_INTERVAL_MS },
  };
}

export type AdsConfig = ReturnType<typeof adsConfig>;
