import { AppError } from '@underdog/kit';

/**
 * The engine's own refusals, with stable reasons (the gateway's vote refusals are in its Games);
 * a visitor or an unverified user gets the kit's `commonErrors` (`NO_SESSION`,
 * `EMAIL_NOT_VERIFIED`) through `requireVerifiedUser`.
 */
export const gameErrors = {
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
  noGame: () =>
    new AppError('NOT_FOUND', 'This tournament has no game to disqualify anyone from', {
      reason: 'GAME_NOT_FOUND',
    }),
  notParticipant: () =>
    new AppError('NOT_FOUND', 'This user is not a participant of the tournament', {
      reason: 'NOT_A_PARTICIPANT',
    }),
  gameEnding: () =>
    new AppError(
      'CONFLICT',
      'The game is ending: its last round is resolved. Try again in a few seconds, once it has ended.',
      { reason: 'GAME_ENDING' },
    ),
};
