import { ConfigError, envFields, parseEnv } from '@underdog/kit';
import { z } from 'zod';
import { parseAll, processConfig } from '../src';

const portConfig = (env: Record<string, string>) => parseEnv({ PORT: envFields.port(3000) }, env);
const nameConfig = (env: Record<string, string>) => parseEnv({ NAME: z.string().min(3) }, env);

describe('parseAll', () => {
  it('returns every parsed model in order when all are valid', () => {
    const env = { PORT: '8081', NAME: 'quiz' };
    expect(
      parseAll(
        () => portConfig(env),
        () => nameConfig(env),
      ),
    ).toEqual([{ PORT: 8081 }, { NAME: 'quiz' }]);
  });

  it('reports the problems of every model together', () => {
    const env = { PORT: 'eighty', NAME: 'q' };
    let error: unknown;
    try {
      parseAll(
        () => portConfig(env),
        () => nameConfig(env),
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^PORT/);
    expect(problems[1]).toMatch(/^NAME/);
  });

  it('lets an error that is not about configuration through as it is', () => {
    const bug = new TypeError('a bug, not a bad variable');
    expect(() =>
      parseAll(
        () => portConfig({ PORT: 'eighty' }),
        () => {
          throw bug;
        },
      ),
    ).toThrow(bug);
  });
});

describe('the variables every process reads', () => {
  /** The key of internal calls, which every distributed process needs. */
  const key = { SERVICE_TOKEN_SECRET: 'a-service-token-secret-of-32-characters' };

  it('reaches Redis through Sentinel when REDIS_SENTINELS lists some', () => {
    const config = processConfig('quiz', 8090, {
      ...key,
      REDIS_URL: 'redis://:secret@primary:6379/2',
      REDIS_SENTINELS: 'sentinel-0:26379, sentinel-1:26379,10.0.0.7:26380',
      REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
    });
    expect(config.REDIS_SENTINELS).toEqual([
      { host: 'sentinel-0', port: 26379 },
      { host: 'sentinel-1', port: 26379 },
      { host: '10.0.0.7', port: 26380 },
    ]);
    expect(config.REDIS_SENTINEL_NAME).toBe('mymaster');
    expect(config.REDIS_SENTINEL_PASSWORD).toBe('sentinel-secret');
  });

  it('connects to REDIS_URL directly without Sentinels', () => {
    const config = processConfig('quiz', 8090, { ...key, REDIS_URL: 'redis://redis:6379' });
    expect(config.REDIS_SENTINELS).toBeUndefined();
  });

  it('refuses a Sentinel without a port, naming the variable', () => {
    expect(() =>
      processConfig('quiz', 8090, { ...key, REDIS_SENTINELS: 'sentinel-0:26379,sentinel-1' }),
    ).toThrow(/REDIS_SENTINELS/);
  });

  it('requires SERVICE_TOKEN_SECRET, 32 characters at least: a service would answer no one', () => {
    expect(() => processConfig('quiz', 8090, {})).toThrow(
      /SERVICE_TOKEN_SECRET: required in distributed mode/,
    );
    expect(() => processConfig('quiz', 8090, { SERVICE_TOKEN_SECRET: 'too-short' })).toThrow(
      /SERVICE_TOKEN_SECRET: must be at least 32 characters/,
    );
    expect(processConfig('quiz', 8090, key).SERVICE_TOKEN_SECRET).toBe(key.SERVICE_TOKEN_SECRET);
  });
});
