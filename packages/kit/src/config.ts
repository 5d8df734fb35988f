import { z } from 'zod';

/**
 * Thrown at boot when the environment does not satisfy a service's config model. The message lists
 * every bad variable at once, so an operator fixes them in one go instead of one per restart.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export type Environment = Record<string, string | undefined>;

/**
 * Parses the environment against a zod object whose keys are the variable names. Empty strings
 * count as unset, so `FOO=` in a shell file falls back to the default instead of failing oddly.
 */
export function parseEnv<S extends z.ZodRawShape>(
  shape: S,
  env: Environment,
): z.infer<z.ZodObject<S>> {
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const result = z.object(shape).safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const variable = issue.path.join('.') || '(environment)';
        const given = cleaned[variable];
        return `${variable}: ${issue.message}${given === undefined ? ' (not set)' : ''}`;
      }),
    );
  }
  return result.data;
}

/** Reusable field schemas, so every service spells the same variable the same way. */
export const envFields = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  host: () => z.string().min(1).default('0.0.0.0'),
  logLevel: () =>
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  nodeEnv: () => z.enum(['development', 'production', 'test']).default('development'),
  url: () => z.url(),
  brokers: () =>
    z
      .string()
      .min(1)
      .transform((value) =>
        value
          .split(',')
          .map((broker) => broker.trim())
          .filter(Boolean),
      ),
  booleanFlag: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0'])
      .default(fallback ? 'true' : 'false')
      .transform((value) => value === 'true' || value === '1'),
};
