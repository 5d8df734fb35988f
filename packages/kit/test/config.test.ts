import { z } from 'zod';
import { ConfigError, envFields, parseEnv } from '../src';

describe('parseEnv', () => {
  const shape = {
    PORT: envFields.port(8080),
    KAFKA_BROKERS: envFields.brokers(),
    MONGO_URL: envFields.url(),
    LOG_LEVEL: envFields.logLevel(),
    FEATURE: envFields.booleanFlag(false),
  };

  it('applies defaults and converts types', () => {
    const config = parseEnv(shape, {
      KAFKA_BROKERS: 'a:9092, b:9092',
      MONGO_URL: 'mongodb://localhost:27017',
      FEATURE: 'true',
    });
    expect(config).toEqual({
      PORT: 8080,
      KAFKA_BROKERS: ['a:9092', 'b:9092'],
      MONGO_URL: 'mongodb://localhost:27017',
      LOG_LEVEL: 'info',
      FEATURE: true,
    });
  });

  it('lists every bad variable at once, saying which are unset', () => {
    let error: unknown;
    try {
      parseEnv(shape, { PORT: 'eighty', MONGO_URL: 'not a url', LOG_LEVEL: 'loud' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(4);
    expect(problems.find((p) => p.startsWith('PORT:'))).toBeDefined();
    expect(problems.find((p) => p.startsWith('KAFKA_BROKERS:'))).toMatch(/not set/);
    expect(problems.find((p) => p.startsWith('MONGO_URL:'))).toBeDefined();
    expect(problems.find((p) => p.startsWith('LOG_LEVEL:'))).toBeDefined();
    expect((error as Error).message).toContain('invalid configuration');
  });

  it('treats an empty variable as unset so the default applies', () => {
    expect(parseEnv({ NAME: z.string().default('fallback') }, { NAME: '' })).toEqual({
      NAME: 'fallback',
    });
  });
});
