import { useApolloClient, useMutation } from '@apollo/client';
import { i18n } from '../../../app/i18n';
import { useCallback } from 'react';
import { useGo } from '../../../app/useGo';
import { useToast } from '../../../app/toast';
import { messageOf } from '../../../app/errors';
import { logFailure } from '../../../app/log';
import { LogoutDocument, MeDocument } from '../../../gql/operations';

/** Logs out, clears every cached answer (asked again as a visitor), toasts 'Logged out' and goes home. */
export function useLogout(): () => Promise<void> {
  const client = useApolloClient();
  const [logout] = useMutation(LogoutDocument);
  const toast = useToast();
  const navigate = useGo();
  return useCallback(async () => {
    try {
      await logout();
      // Not `clearStore`, which drops the cache's watches: the header would keep showing the
      // user. `resetStore` empties the cache and asks the active queries again, as a visitor.
      client.writeQuery({ query: MeDocument, data: { me: null } });
      // The logout is done: a query that fails to load again is the screen's to show.
      await client
        .resetStore()
        .catch((error: unknown) => logFailure('reloading after logout', error));
      toast({ title: i18n.t('auth.loggedOut') });
      navigate('/');
    } catch (error) {
      toast({
        title: i18n.t('auth.logoutFailed'),
        description: messageOf(error, String(error)),
        variant: 'destructive',
      });
    }
  }, [client, logout, navigate, toast]);
}
