import { z } from 'zod';
import {
  AppError,
  parseInput,
  requireAdmin,
  requireUser,
  requireVerifiedUser,
  systemClock,
} from '../src';

const visitor = { userId: '', role: '', isEmailVerified: false };
const user = { userId: 'u1', role: 'user', isEmailVerified: true };
const unverified = { userId: 'u2', role: 'user', isEmailVerified: false };
const admin = { userId: 'a1', role: 'admin', isEmailVerified: false };

function reasonOf(check: () => unknown): string | undefined {
  try {
    check();
  } catch (error) {
    if (error instanceof AppError) return `${error.code}/${error.reason}`;
    throw error;
  }
  return undefined;
}

describe('access checks on the proto Actor', () => {
  it('requireUser: a visitor (empty or absent) gets NO_SESSION, a user their id', () => {
    expect(reasonOf(() => requireUser(undefined))).toBe('UNAUTHENTICATED/NO_SESSION');
    expect(reasonOf(() => requireUser(visitor))).toBe('UNAUTHENTICATED/NO_SESSION');
    expect(requireUser(unverified)).toBe('u2');
  });

  it('requireAdmin: a visitor 401 NO_SESSION, a user 403 ADMIN_ONLY, an admin passes unverified', () => {
    expect(reasonOf(() => requireAdmin(visitor))).toBe('UNAUTHENTICATED/NO_SESSION');
    expect(reasonOf(() => requireAdmin(user))).toBe('FORBIDDEN/ADMIN_ONLY');
    expect(reasonOf(() => requireAdmin(admin))).toBeUndefined();
  });

  it('requireVerifiedUser: an unverified user gets EMAIL_NOT_VERIFIED', () => {
    expect(reasonOf(() => requireVerifiedUser(visitor))).toBe('UNAUTHENTICATED/NO_SESSION');
    expect(reasonOf(() => requireVerifiedUser(unverified))).toBe('FORBIDDEN/EMAIL_NOT_VERIFIED');
    expect(requireVerifiedUser(user)).toBe('u1');
  });
});

describe('parseInput', () => {
  const schema = z.object({
    title: z.string().min(1, 'Title is required'),
    duration: z.number().min(1, 'Duration must be at least 1 second'),
  });

  it('returns the parsed value', () => {
    expect(parseInput(schema, { title: 'A', duration: 5 })).toEqual({ title: 'A', duration: 5 });
  });

  it("throws the first problem as 400 VALIDATION_FAILED with the rule's message", () => {
    let error: unknown;
    try {
      parseInput(schema, { title: '', duration: 0 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: 'BAD_REQUEST',
      reason: 'VALIDATION_FAILED',
      message: 'Title is required',
    });
  });
});

describe('systemClock', () => {
  it('tells the current time', () => {
    const before = Date.now();
    const now = systemClock.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
