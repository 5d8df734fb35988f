import { useQuery } from '@apollo/client';
import { logFailure } from '../../../app/log';
import { HasOfflineChoicesDocument } from '../../../gql/operations';

/**
 * Whether the signed-in user pre-registered for an upcoming tournament (spec §7: asked only for
 * signed-in users on upcoming tournaments). A failed check counts as no choices and is logged
 * (spec §8).
 */
export function useHasOfflineChoices(tournamentId: string, ask: boolean): boolean {
  const { data } = useQuery(HasOfflineChoicesDocument, {
    variables: { tournamentId },
    skip: !ask,
    onError: logFailedOfflineChoicesCheck,
  });
  return ask && data?.hasOfflineChoices === true;
}

/** Spec §8: a failed has-offline-choices check is treated as no choices, logged only. */
export function logFailedOfflineChoicesCheck(error: unknown): void {
  logFailure('has-offline-choices check failed; treated as no choices', error);
}
