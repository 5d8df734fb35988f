import { AppError } from '@underdog/kit';

/**
 * The failures only the tournament service reports, with their stable reasons and the messages
 * the client shows (`NO_SESSION`, `ADMIN_ONLY`, `EMAIL_NOT_VERIFIED` and `VALIDATION_FAILED` are
 * the kit's `commonErrors`). Validation messages are the product spec's own words (§5).
 */
export const tournamentErrors = {
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
  notFinished: () =>
    new AppError('CONFLICT', 'The tournament has not finished yet: there is no prize to confirm', {
      reason: 'TOURNAMENT_NOT_FINISHED',
    }),
  noWinner: () =>
    new AppError('CONFLICT', 'The tournament ended without a winner: there is no prize to pay', {
      reason: 'NO_WINNER',
    }),
  deviceAlreadyUsed: () =>
    new AppError(
      'FORBIDDEN',
      'This device is already registered for this tournament with another account',
      { reason: 'DEVICE_ALREADY_USED' },
    ),
} as const;
