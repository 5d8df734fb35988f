import { AppError, isStoreUnavailable } from '@underdog/kit';
import { LiveStoreError } from '@underdog/store';
import { StoreTimeoutError, withStoreTimeout } from '../src/store-unavailable';

/** What the vote path answers VOTE_NOT_RECORDED (retryable) rather than INTERNAL (issue 29). */
describe('isStoreUnavailable', () => {
  const named = (name: string, message: string) => Object.assign(new Error(message), { name });
  const coded = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

  it.each([
    [
      'a demoted primary (a failover)',
      new LiveStoreError("READONLY You can't write against a read only replica."),
    ],
    [
      'a replica loading its data',
      new LiveStoreError('LOADING Redis is loading the dataset in memory'),
    ],
    ['a primary without its link', new LiveStoreError('MASTERDOWN Link with MASTER is down')],
    ['a busy script', new LiveStoreError('BUSY Redis is busy running a script')],
    [
      "ioredis's retries exhausted",
      named('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 1).'),
    ],
    ['a connection closed', new Error('Connection is closed.')],
    ['a refused connection', coded('ECONNREFUSED')],
    ['a reset connection', coded('ECONNRESET')],
    ['no answer in time', new StoreTimeoutError('underdogAdmitVote: no answer')],
  ])('%s: unavailable', (_what, error) => {
    expect(isStoreUnavailable(error)).toBe(true);
  });

  it.each([
    ['a script error (a defect)', new LiveStoreError('ERR Error running script')],
    ['a wrong type', new LiveStoreError('WRONGTYPE Operation against a key')],
    ['a refusal', new AppError('CONFLICT', 'no')],
    ['a programming error', new TypeError('x is undefined')],
    ['not an error', 'READONLY'],
  ])('%s: not unavailable', (_what, error) => {
    expect(isStoreUnavailable(error)).toBe(false);
  });

  it('withStoreTimeout gives the answer, or a StoreTimeoutError when none comes', async () => {
    await expect(withStoreTimeout(Promise.resolve('OK'), 1_000, 'step')).resolves.toBe('OK');
    await expect(
      withStoreTimeout(new Promise<never>(() => undefined), 1, 'step'),
    ).rejects.toBeInstanceOf(StoreTimeoutError);
  });
});
