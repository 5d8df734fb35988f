import { Writable } from 'node:stream';
import { createLogger } from '../src';

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
});
