import type { z } from 'zod';
import { AppError } from './errors';

/** The time source every rule is measured against; tests pass one they move by hand. */
export interface Clock {
  now(): Date;
}

/** The real time. */
export const systemClock: Clock = { now: () => new Date() };

/**
 * The failures every service reports alike, with their stable reasons and the messages clients
 * show. A service's own failures live in its `domain/errors.ts`.
 */
export const commonErrors = {
  /** No signed-in user (a visitor): 401 `NO_SESSION`. */
  noSession: () => new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' }),
  /** Signed in, but not an admin: 403 `ADMIN_ONLY`. */
  adminOnly: () => new AppError('FORBIDDEN', 'Admin access required', { reason: 'ADMIN_ONLY' }),
  /** Signed in, but the e-mail address is not verified: 403 `EMAIL_NOT_VERIFIED`. */
  emailNotVerified: () =>
    new AppError('FORBIDDEN', 'Please verify your email address first', {
      reason: 'EMAIL_NOT_VERIFIED',
    }),
  /** Input that breaks a rule: 400 `VALIDATION_FAILED` with the rule's own message. */
  invalid: (message: string) =>
    new AppError('BAD_REQUEST', message, { reason: 'VALIDATION_FAILED' }),
} as const;

/**
 * What the access checks read of the proto's `Actor` (`underdog.common.v1.Actor`), the one name
 * of who makes a request: a visitor has an empty user id. Services pass the request's `actor`
 * as it came (absent is a visitor too).
 */
type ActorFields = {
  readonly userId: string;
  readonly role: string;
  readonly isEmailVerified: boolean;
};

export const ADMIN_ROLE = 'admin';

/** Any signed-in user, verified or not; returns their id. A visitor gets `NO_SESSION`. */
export function requireUser(actor: Pick<ActorFields, 'userId'> | undefined): string {
  if (!actor?.userId) throw commonErrors.noSession();
  return actor.userId;
}

/** Admins only (verification is not required of them): a visitor 401, anyone else 403. */
export function requireAdmin(actor: Pick<ActorFields, 'userId' | 'role'> | undefined): void {
  requireUser(actor);
  if (actor?.role !== ADMIN_ROLE) throw commonErrors.adminOnly();
}

/** Verified users only (taking part in a game); returns their id. */
export function requireVerifiedUser(actor: ActorFields | undefined): string {
  const userId = requireUser(actor);
  if (!actor?.isEmailVerified) throw commonErrors.emailNotVerified();
  return userId;
}

/**
 * Parses `value` or throws the first problem as BAD_REQUEST / VALIDATION_FAILED: the client
 * shows one message at a time, in the order of the form's fields.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw commonErrors.invalid(result.error.issues[0]?.message ?? 'Invalid request');
}
