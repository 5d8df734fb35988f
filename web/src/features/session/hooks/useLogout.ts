import { useApolloClient, useMutation } from '@apollo/client';
import { i18n } from '../../../app/i18n';
import { useCallback } from 'react';
import { useGo } from '../../../app/useGo';
import { useToast } from '../../../app/toast';
import { messageOf } from '../../../app/errors';
import { LogoutDocument, MeDocument } from '../../../gql/operations';

/** Logs out, clears every cached answer, toasts 'Logged out' and goes home. */
export function useLogout(): () => Promise<void> {
  const client = useApolloClient();
  const [logout] = useMutation(LogoutDocument);
  const toast = useToast();
  const navigate = useGo();
  return useCallback(async () => {
    try {
      await logout();
      await client.clearStore();
      client.writeQuery({ query: MeDocument, data: { me: null } });
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
