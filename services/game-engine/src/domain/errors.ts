import { AppError } from '@underdog/kit';

/** The engine's refusals, with stable reasons (the gateway's vote refusals are in its Games). */
export const gameErrors = {
  notAuthenticated: () =>
    new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' }),
  notVerified: () =>
    new AppError('FORBIDDEN', 'Please verify your email address first', {
      reason: 'NOT_VERIFIED',
    }),
  tournamentNotFound: () =>
    new AppError('NOT_FOUND', 'Tournament not found', { reason: 'TOURNAMENT_NOT_FOUND' }),
  joinClosed: () =>
    new AppError(
      'CONFLICT',
      'Joining is closed: the first round has ended. You can still watch the game.',
      { reason: 'JOIN_CLOSED' },
    ),
  deviceInUse: () =>
    new AppError('CONFLICT', 'This device already plays in this tournament with another account', {
      reason: 'DEVICE_IN_USE',
    }),
};
