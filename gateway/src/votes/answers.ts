import { AppError } from '@underdog/kit';
import { TOTAL_ROUNDS } from '@underdog/rules';

/** A vote as a client submits it; the same answer acknowledges it. */
export interface VoteInput {
  tournamentId: string;
  roundNumber: number;
  imageId: string;
}

/** The admission's refusals (`admitVote`'s replies other than an admission or a resend). */
export type Refusal =
  | 'NO_LIVE_GAME'
  | 'NOT_PARTICIPANT'
  | 'ELIMINATED'
  | 'WRONG_ROUND'
  | 'VOTING_CLOSED'
  | 'ALREADY_VOTED'
  | 'DEVICE_IN_USE';

/** Every refusal of a vote: its kind, stable reason and the message players read. */
export const refusals: Record<Refusal, () => AppError> = {
  NO_LIVE_GAME: () =>
    new AppError('CONFLICT', 'There is no live game in this tournament', {
      reason: 'NO_LIVE_GAME',
    }),
  NOT_PARTICIPANT: () =>
    new AppError('FORBIDDEN', 'You are not a participant in this tournament', {
      reason: 'NOT_PARTICIPANT',
    }),
  ELIMINATED: () =>
    new AppError('FORBIDDEN', 'You have been eliminated: you can watch the rest of the game', {
      reason: 'ELIMINATED',
    }),
  WRONG_ROUND: () =>
    new AppError('CONFLICT', 'That round is not the current round', { reason: 'WRONG_ROUND' }),
  VOTING_CLOSED: () =>
    new AppError('CONFLICT', 'Voting for this round has closed', { reason: 'VOTING_CLOSED' }),
  ALREADY_VOTED: () =>
    new AppError('CONFLICT', 'You have already voted in this round', {
      reason: 'ALREADY_VOTED',
    }),
  DEVICE_IN_USE: () =>
    new AppError('CONFLICT', 'This device already plays in this tournament with another account', {
      reason: 'DEVICE_IN_USE',
    }),
};

/** The refusal an admission reply stands for; a reply the gateway does not know is a bug. */
export function refusalOf(reply: string): AppError {
  const refuse = refusals[reply as Refusal] as (() => AppError) | undefined;
  if (!refuse) throw new Error(`unexpected vote admission reply ${reply}`);
  return refuse();
}

export const gameErrors = {
  invalidImage: (round: number) =>
    new AppError('BAD_REQUEST', `That image is not one of round ${round}'s images`, {
      reason: 'INVALID_IMAGE',
    }),
  invalidRound: () =>
    new AppError('BAD_REQUEST', `The round number must be 1 to ${TOTAL_ROUNDS}`, {
      reason: 'WRONG_ROUND',
    }),
  /**
   * Retryable: the vote was not produced in time (settling made sure it never counts), the live
   * store was unavailable (a failover), or a vote of the player is still being settled; the
   * retry is answered with that vote's fate (docs/adr/0009).
   */
  notRecorded: (cause?: unknown) =>
    new AppError('UNAVAILABLE', 'Your vote could not be recorded; please try again', {
      reason: 'VOTE_NOT_RECORDED',
      ...(cause === undefined ? {} : { cause }),
    }),
  /**
   * Retryable: the tournament's votes partition holds more unapplied votes than the engine
   * applies within the grace (back-pressure, issue 35); nothing was admitted or produced.
   */
  backPressure: () =>
    new AppError(
      'UNAVAILABLE',
      'Votes are arriving faster than they are counted; please try again',
      {
        reason: 'VOTE_NOT_RECORDED',
      },
    ),
};
