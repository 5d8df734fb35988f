import { isSessionAlive, sessionExpiresAt } from '../src/domain/session';
import { usernameBase, usernameCandidate, withSuffix } from '../src/domain/username';
import { codeRefusal, mayResend } from '../src/domain/verification';

describe('usernames', () => {
  it.each([
    ['alice@example.com', 'alice'],
    ['Alice.Smith@example.com', 'alice_smith'],
    ['bob+newsletter@example.com', 'bob'],
    ['a--b..c@example.com', 'a_b_c'],
    ['jo@example.com', 'jo_player'],
    ["'''@example.com", 'player'],
    ['_x_@example.com', 'x_player'],
    ['abcdefghijklmnopqrstuvwxyz@example.com', 'abcdefghijklmnopqrst'],
  ])('derives the username of %s as %s', (email, username) => {
    expect(usernameBase(email)).toBe(username);
  });

  it('keeps suffixed usernames within 20 characters', () => {
    expect(withSuffix('abcdefghijklmnopqrst', 7)).toBe('abcdefghijklmnopqrs7');
    expect(withSuffix('sam', 12)).toBe('sam12');
  });

  it('tries the base, then base1 to base9, then random suffixes', () => {
    const candidates = Array.from({ length: 20 }, (_, attempt) =>
      usernameCandidate('sam', attempt, () => 0.5),
    );

    expect(candidates.slice(0, 10)).toEqual([
      'sam',
      ...Array.from({ length: 9 }, (_, i) => `sam${i + 1}`),
    ]);
    expect(candidates[10]).toMatch(/^sam\d{4}$/);
    expect(candidates[19]).toMatch(/^sam\d{6}$/);
  });
});

describe('verification rules', () => {
  const at = (iso: string) => new Date(`2030-01-01T${iso}Z`);
  const pending = {
    codeHash: 'h',
    tokenHash: 't',
    expiresAt: at('12:10:00'),
    failedAttempts: 0,
    failedEmailAttempts: 0,
  };

  it('says why a code cannot be tried, voided before expired', () => {
    expect(codeRefusal(undefined, at('12:00:00'))).toBe('NO_CODE');
    expect(codeRefusal(pending, at('12:09:59'))).toBeUndefined();
    expect(codeRefusal(pending, at('12:10:00'))).toBe('CODE_EXPIRED');
    expect(codeRefusal({ ...pending, failedAttempts: 5 }, at('12:11:00'))).toBe('CODE_VOIDED');
  });

  it('allows a resend a minute after the last e-mail', () => {
    expect(mayResend(null, at('12:00:00'))).toBe(true);
    expect(mayResend(at('12:00:00'), at('12:00:59'))).toBe(false);
    expect(mayResend(at('12:00:00'), at('12:01:00'))).toBe(true);
  });
});

describe('session rules', () => {
  const hour = 60 * 60_000;
  const createdAt = new Date('2030-01-01T00:00:00Z');

  it('ends 24 hours after the last use, and never later than 30 days after login', () => {
    const recent = { createdAt, lastSeenAt: new Date(createdAt.getTime() + hour) };
    expect(sessionExpiresAt(recent)).toEqual(new Date(createdAt.getTime() + 25 * hour));

    const old = { createdAt, lastSeenAt: new Date(createdAt.getTime() + 29.5 * 24 * hour) };
    expect(sessionExpiresAt(old)).toEqual(new Date(createdAt.getTime() + 30 * 24 * hour));
    expect(isSessionAlive(old, new Date(createdAt.getTime() + 30 * 24 * hour))).toBe(false);
  });
});
