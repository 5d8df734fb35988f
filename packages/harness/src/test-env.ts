/** The variables the jest global setup exports to the test workers. */
export const envNames = {
  redisUrl: 'UNDERDOG_TEST_REDIS_URL',
  kafkaBrokers: 'UNDERDOG_TEST_KAFKA_BROKERS',
  mongoUrl: 'UNDERDOG_TEST_MONGO_URL',
  smtpUrl: 'UNDERDOG_TEST_SMTP_URL',
  smtpApiUrl: 'UNDERDOG_TEST_SMTP_API',
} as const;

export interface TestInfra {
  redisUrl: string;
  kafkaBrokers: string[];
  mongoUrl: string;
  smtpUrl: string;
  smtpApiUrl: string;
}

/**
 * The real servers of this integration run. Throws rather than letting a test skip or fall back
 * to a fake, because a missing server means the run is not testing what it claims to.
 */
export function testInfra(): TestInfra {
  const missing = Object.values(envNames).filter((name) => !process.env[name]);
  if (missing.length > 0) {
    throw new Error(
      `testInfra: ${missing.join(', ')} not set. Integration tests get real servers from the ` +
        'jest "integration" and "e2e" projects (their globalSetup is ' +
        'packages/harness/src/jest/global-setup.ts); run them with `pnpm test:integration` or ' +
        '`pnpm test:e2e`.',
    );
  }
  const read = (name: string): string => process.env[name] ?? '';
  return {
    redisUrl: read(envNames.redisUrl),
    kafkaBrokers: read(envNames.kafkaBrokers).split(','),
    mongoUrl: read(envNames.mongoUrl),
    smtpUrl: read(envNames.smtpUrl),
    smtpApiUrl: read(envNames.smtpApiUrl),
  };
}
