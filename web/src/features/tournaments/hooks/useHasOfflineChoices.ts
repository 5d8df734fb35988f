import { useQuery } from '@apollo/client';
import { HasOfflineChoicesDocument } from '../../../gql/operations';

/**
 * Whether the signed-in user pre-registered for an upcoming tournament (spec §7: asked only for
 * signed-in users on upcoming tournaments). A failed check counts as no choices (spec §8).
 */
export function useHasOfflineChoices(tournamentId: string, ask: boolean): boolean {
  const { data } = useQuery(HasOfflineChoicesDocument, {
    variables: { tournamentId },
    skip: !ask,
  });
  return ask && data?.hasOfflineChoices === true;
}
