import { AppError, commonErrors } from '@underdog/kit';

/**
 * The failures only the auth service reports, with their stable reasons and the messages the
 * client shows (`NO_SESSION` and `VALIDATION_FAILED` are the kit's `commonErrors`). Login
 * failures share one error whatever the cause, so they reveal nothing.
 */
export const authErrors = {
  emailTaken: () =>
    new AppError('CONFLICT', 'Username might already be taken or invalid data provided', {
      reason: 'EMAIL_TAKEN',
    }),
  invalidCredentials: () =>
    new AppError('UNAUTHENTICATED', 'Invalid username or password', {
      reason: 'INVALID_CREDENTIALS',
    }),
  wrongPassword: () =>
    new AppError('BAD_REQUEST', 'Current password is incorrect', { reason: 'WRONG_PASSWORD' }),
  codeInvalid: () =>
    new AppError('BAD_REQUEST', 'Invalid verification code', { reason: 'CODE_INVALID' }),
  codeVoided: () =>
    new AppError('BAD_REQUEST', 'Too many wrong attempts. Request a new code.', {
      reason: 'CODE_VOIDED',
    }),
  codeExpired: () =>
    new AppError('BAD_REQUEST', 'Verification code has expired. Request a new code.', {
      reason: 'CODE_EXPIRED',
    }),
  noCode: () =>
    new AppError('BAD_REQUEST', 'No verification code is pending. Request a new code.', {
      reason: 'NO_CODE',
    }),
  tokenInvalid: () =>
    new AppError('BAD_REQUEST', 'Invalid or expired verification link', {
      reason: 'TOKEN_INVALID',
    }),
  resendTooSoon: () =>
    new AppError('RATE_LIMITED', 'Please wait a minute before requesting another code.', {
      reason: 'RESEND_TOO_SOON',
    }),
  userNotFound: () => new AppError('NOT_FOUND', 'User not found', { reason: 'USER_NOT_FOUND' }),
  benchmarkSeedOff: () =>
    new AppError('FORBIDDEN', 'Benchmark seeding is off (BENCHMARK_SEED)', {
      reason: 'BENCHMARK_SEED_OFF',
    }),
  invalidRole: () => commonErrors.invalid('Role must be user or admin'),
} as const;
