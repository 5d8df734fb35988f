import type { PendingVerification } from './user';

/** Server rules: a code is valid 10 minutes, single use, void after 5 wrong tries. */
export const verificationRules = {
  validForMs: 10 * 60_000,
  maxCodeAttempts: 5,
  /** A resend replaces the old code at most once a minute per account. */
  resendIntervalMs: 60_000,
} as const;

/** Why a code cannot be checked at all; the reasons are the `reason` codes clients see. */
export type CodeRefusal = 'NO_CODE' | 'CODE_VOIDED' | 'CODE_EXPIRED';

/**
 * Whether `verification` can take a code attempt at `now`. Voided wins over expired: the user
 * learns the most useful thing (either way a new code is needed).
 */
export function codeRefusal(
  verification: PendingVerification | undefined,
  now: Date,
): CodeRefusal | undefined {
  if (!verification) return 'NO_CODE';
  if (isVoided(verification)) return 'CODE_VOIDED';
  if (isExpired(verification, now)) return 'CODE_EXPIRED';
  return undefined;
}

/**
 * Who is trying a code: the account's own session, or a caller naming only the e-mail. Their
 * wrong tries are counted apart, so a stranger who knows the e-mail cannot void the owner's code.
 */
export type CodeChannel = 'session' | 'email';

/** Whether `channel` has tries left on `verification` (the owner's voiding stops both). */
export function hasAttemptsLeft(verification: PendingVerification, channel: CodeChannel): boolean {
  return (
    channel === 'session' || verification.failedEmailAttempts < verificationRules.maxCodeAttempts
  );
}

export function isVoided(verification: PendingVerification): boolean {
  return verification.failedAttempts >= verificationRules.maxCodeAttempts;
}

export function isExpired(verification: PendingVerification, now: Date): boolean {
  return now.getTime() >= verification.expiresAt.getTime();
}

/** Whether a link token still verifies: neither voided by wrong codes nor expired. */
export function acceptsToken(verification: PendingVerification, now: Date): boolean {
  return !isVoided(verification) && !isExpired(verification, now);
}

/** Whether an account that was sent a code at `lastSentAt` may be sent another at `now`. */
export function mayResend(lastSentAt: Date | null, now: Date): boolean {
  return (
    lastSentAt === null ||
    now.getTime() - lastSentAt.getTime() >= verificationRules.resendIntervalMs
  );
}

export function verificationExpiry(now: Date): Date {
  return new Date(now.getTime() + verificationRules.validForMs);
}
