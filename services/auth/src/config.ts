import { ConfigError, envFields, parseEnv, type Environment } from '@underdog/kit';
import { serviceTokenSecretField } from '@underdog/platform';
import { z } from 'zod';
import type { AdminAccount } from './account-types';
import { passwordRule } from './domain/validation';

/** The auth service's own variables (the common ones are read by @underdog/platform). */
export function authConfig(env: Environment): AuthConfig {
  const parsed = parseEnv(
    {
      ADMIN_EMAIL: z
        .string()
        .trim()
        .toLowerCase()
        .pipe(z.email('must be an e-mail address'))
        .optional(),
      ADMIN_PASSWORD: passwordRule.optional(),
      ADMIN_DISPLAY_NAME: z.string().trim().min(2).max(50).default('Admin'),
      NODE_ENV: envFields.nodeEnv(),
      BENCHMARK_SEED: benchmarkSeedField,
    },
    env,
  );
  const benchmarkSeed = benchmarkSeedAllowed(parsed.BENCHMARK_SEED, parsed.NODE_ENV);
  const { ADMIN_EMAIL: email, ADMIN_PASSWORD: password } = parsed;
  if (email === undefined && password === undefined) return { admin: undefined, benchmarkSeed };
  if (email === undefined || password === undefined) {
    const missing = email === undefined ? 'ADMIN_EMAIL' : 'ADMIN_PASSWORD';
    throw new ConfigError([
      `${missing}: ADMIN_EMAIL and ADMIN_PASSWORD go together: set both or neither (not set)`,
    ]);
  }
  return { admin: { email, password, displayName: parsed.ADMIN_DISPLAY_NAME }, benchmarkSeed };
}

/** `BENCHMARK_SEED`: `on` enables the benchmark's seeding RPC (load/README.md). */
const benchmarkSeedField = z.enum(['on', 'off']).default('off');

/** The benchmark seam never runs in production: asking for it there stops the boot. */
function benchmarkSeedAllowed(value: 'on' | 'off', nodeEnv: string): boolean {
  if (value === 'on' && nodeEnv === 'production') {
    throw new ConfigError(['BENCHMARK_SEED: must not be on in production (NODE_ENV=production)']);
  }
  return value === 'on';
}

export interface AuthConfig {
  /** The first admin, created (or promoted) at start; from ADMIN_EMAIL / ADMIN_PASSWORD. */
  admin: AdminAccount | undefined;
  /** Whether `SeedBenchmarkUsers` answers (BENCHMARK_SEED=on; never in production). */
  benchmarkSeed: boolean;
}

/**
 * The `grant-admin` CLI's variables: where auth answers, and the key its call is signed with
 * (the deployment's SERVICE_TOKEN_SECRET; the auth pod has it in its environment).
 */
export function cliConfig(env: Environment) {
  return parseEnv(
    {
      AUTH_URL: envFields.url().default('http://127.0.0.1:8081'),
      SERVICE_TOKEN_SECRET: serviceTokenSecretField(),
    },
    env,
  );
}

export type CliConfig = ReturnType<typeof cliConfig>;
