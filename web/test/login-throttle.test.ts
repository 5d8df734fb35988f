// Issue 39, point 3: a throttled login (429 RATE_LIMITED) says when to try again, in English and
// Persian, instead of the generic 'Invalid username or password'.
import { ApolloError, type ServerError } from '@apollo/client';
import { loginFailureTextOf } from '../src/app/errors';
import { setLanguage } from '../src/app/i18n';

/** The gateway's answer to a login over its limit: HTTP 429, Retry-After, RATE_LIMITED. */
function answered(status: number, code: string, retryAfter?: string): ApolloError {
  const networkError = Object.assign(new Error(`Response not successful: ${status}`), {
    name: 'ServerError',
    statusCode: status,
    response: { headers: { get: (name: string) => (name === 'retry-after' ? retryAfter : null) } },
    result: { errors: [{ message: 'Too many attempts.', extensions: { code } }] },
  }) as unknown as ServerError;
  return new ApolloError({ networkError });
}

describe('the login failure text', () => {
  afterEach(() => setLanguage('en'));

  it('says how many minutes to wait when the login is throttled', () => {
    expect(loginFailureTextOf(answered(429, 'RATE_LIMITED', '540'))).toBe(
      'Too many attempts. Try again in 9 minutes.',
    );
    expect(loginFailureTextOf(answered(429, 'RATE_LIMITED', '61'))).toBe(
      'Too many attempts. Try again in 2 minutes.',
    );
    expect(loginFailureTextOf(answered(429, 'RATE_LIMITED', '30'))).toBe(
      'Too many attempts. Try again in 1 minute.',
    );
  });

  it('says it in Persian too', () => {
    setLanguage('fa');
    expect(loginFailureTextOf(answered(429, 'RATE_LIMITED', '540'))).toBe(
      'تلاش‌ها بیش از حد بود. ۹ دقیقهٔ دیگر دوباره تلاش کنید.',
    );
  });

  it('stays generic for wrong credentials (spec §5)', () => {
    expect(loginFailureTextOf(answered(401, 'INVALID_CREDENTIALS'))).toBe(
      'Invalid username or password',
    );
  });
});
