import { AppError } from '@underdog/kit';

/** Every failure the ads service reports, with its stable reason and the message clients show. */
export const adsErrors = {
  notAuthenticated: () =>
    new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' }),
  adminOnly: () => new AppError('FORBIDDEN', 'Admin access required', { reason: 'ADMIN_ONLY' }),
  notFound: () => new AppError('NOT_FOUND', 'Advertisement not found', { reason: 'AD_NOT_FOUND' }),
  invalid: (message: string) =>
    new AppError('BAD_REQUEST', message, { reason: 'VALIDATION_FAILED' }),
} as const;
