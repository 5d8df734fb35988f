import { useQuery } from '@apollo/client';
import { useEffect } from 'react';
import { logFailure } from '../../../app/log';
import { HasOfflineChoicesDocument } from '../../../gql/operations';

/**
 * Whether the signed-in user pre-registered for an upcoming tournament (spec §7: asked only for
 * signed-in users on upcoming tournaments). A failed check counts as no choices and is logged
 * (spec §8).
 */
export function useHasOfflineChoices(tournamentId: string, ask: boolean): boolean {
  const { data, error } = useQuery(HasOfflineChoicesDocument, {
    variables: { tournamentId },
    skip: !ask,
  });
  useLogFailedOfflineChoicesCheck(error);
  return ask && data?.hasOfflineChoices === true;
}

/** Spec §8: a failed has-offline-choices check is treated as no choices, logged only (once). */
export function useLogFailedOfflineChoicesCheck(error: unknown): void {
  useEffect(() => {
    if (error) logFailure('has-offline-choices check failed; treated as no choices', error);
  }, [error]);
}
