import { ConfigError, envFields, parseEnv } from '@underdog/kit';
import { z } from 'zod';
import { parseAll } from '../src';

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
