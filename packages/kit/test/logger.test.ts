import { Writable } from 'node:stream';
import { AppError, createLogger, runWithRequestId } from '../src';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, destination };
}

describe('createLogger', () => {
  it('redacts passwords, verification codes, tokens and cookies', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'auth', level: 'info', destination });
    logger.info(
      {
        password: 'hunter2',
        user: { email: 'a@b.c', password: 'hunter2', verificationCode: '123456' },
        // A verify-email request body: here `code` is the secret.
        body: { token: 'abc', code: '654321', newPassword: 'x1234567' },
        req: { headers: { cookie: 'sid=secret', authorization: 'Bearer x' } },
      },
      'registered',
    );
    const text = JSON.stringify(lines);
    for (const secret of [
      'hunter2',
      '123456',
      '654321',
      'abc"',
      'sid=secret',
      'Bearer x',
      'x1234567',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(lines[0]).toMatchObject({
      service: 'auth',
      msg: 'registered',
      user: { email: 'a@b.c' },
    });
  });

  it("keeps an error's code readable while redacting a verification code", () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'auth', level: 'info', destination });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), {
      code: 'ECONNREFUSED',
    });
    logger.error({ err: refused }, 'redis unreachable');
    logger.error({ err: { code: 11000, message: 'duplicate key' } }, 'insert failed');
    logger.warn({ err: new AppError('CONFLICT', 'taken', { reason: 'EMAIL_TAKEN' }) }, 'taken');
    logger.info({ userId: 'u-1', verificationCode: '482913', code: 'EMAIL_TAKEN' }, 'sent');

    expect(lines.map((line) => (line.err as { code?: unknown } | undefined)?.code)).toEqual([
      'ECONNREFUSED',
      11000,
      'CONFLICT',
      undefined,
    ]);
    expect(lines[3]).toMatchObject({ code: 'EMAIL_TAKEN', verificationCode: '[redacted]' });
    expect(JSON.stringify(lines)).not.toContain('482913');
  });

  it('puts the current request id on every line written while it is set', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'gateway', level: 'info', destination });
    logger.info('before');
    runWithRequestId('req-42', () => logger.child({ component: 'x' }).info('during'));
    expect(lines.map((line) => line.requestId)).toEqual([undefined, 'req-42']);
  });
});
