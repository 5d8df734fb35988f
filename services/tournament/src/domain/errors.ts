import { AppError } from '@underdog/kit';

/**
 * Every failure the tournament service reports, with its stable reason and the message the
 * client shows. Validation messages are the product spec's own words (§5).
 */
export const tournamentErrors = {
  notAuthenticated: () =>
    new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' }),
  adminOnly: () => new AppError('FORBIDDEN', 'Admin access required', { reason: 'ADMIN_ONLY' }),
  emailNotVerified: () =>
    new AppError('FORBIDDEN', 'Please verify your email address first', {
      reason: 'EMAIL_NOT_VERIFIED',
    }),
  invalid: (message: string) =>
    new AppError('BAD_REQUEST', message, { reason: 'VALIDATION_FAILED' }),
  notFound: () =>
    new AppError('NOT_FOUND', 'Tournament not found', { reason: 'TOURNAMENT_NOT_FOUND' }),
  liveNotDeletable: () =>
    new AppError('CONFLICT', 'A live tournament cannot be deleted', { reason: 'TOURNAMENT_LIVE' }),
  liveStartLocked: () =>
    new AppError('CONFLICT', 'The start time of a live tournament cannot be changed', {
      reason: 'TOURNAMENT_LIVE',
    }),
  liveRoundTimeLocked: () =>
    new AppError('CONFLICT', 'The round time of a live tournament cannot be changed', {
      reason: 'TOURNAMENT_LIVE',
    }),
  finishedReadOnly: () =>
    new AppError('CONFLICT', 'A finished tournament cannot be changed', {
      reason: 'TOURNAMENT_FINISHED',
    }),
  offlineWindowClosed: () =>
    new AppError(
      'CONFLICT',
      'The offline registration window has closed (it closes 5 minutes before the start)',
      { reason: 'OFFLINE_WINDOW_CLOSED' },
    ),
  alreadyRegistered: () =>
    new AppError('CONFLICT', 'You have already registered offline choices for this tournament', {
      reason: 'ALREADY_REGISTERED',
    }),
  deviceAlreadyUsed: () =>
    new AppError(
      'FORBIDDEN',
      'This device is already registered for this tournament with another account',
      { reason: 'DEVICE_ALREADY_USED' },
    ),
} as const;
