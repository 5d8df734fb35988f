import type { ApolloClient } from '@apollo/client';
import { MeDocument, type MeQuery } from '../gql/operations';

/**
 * The gateway's answer to an operation that needs a signed-in user on a socket whose session
 * is a visitor's (docs/api-ws.md): the page may have signed in since the socket opened, so the
 * client opens the socket again (its upgrade then carries the page's cookie) and sends the
 * operation once more. Over HTTP the same refusal is `UNAUTHENTICATED`.
 */
export const SOCKET_UNAUTHENTICATED = 'SOCKET_UNAUTHENTICATED';

/**
 * Who the page is signed in as, as far as the gateway's rules go: the user, their role and
 * whether they are verified (each decides what the socket may do); `visitor` when signed out.
 */
export function sessionKeyOf(me: MeQuery['me'] | undefined): string {
  return me ? `${me.id}|${me.role}|${String(me.isEmailVerified)}` : 'visitor';
}

/**
 * Calls `reopenSocket` whenever the page's session changes — a login, a registration, a
 * verification, a logout, anything that writes a different `me` to the cache — so the socket,
 * whose session the gateway read from its upgrade's cookie, speaks for the user the page shows.
 * The first `me` the page reads describes the cookie the socket opened with: no reopening then.
 * `clearStore` drops every watch of the cache: the watch is made again after it, remembering
 * the session the socket speaks for. Returns the function that stops following.
 */
export function followSession(
  client: Pick<ApolloClient<unknown>, 'cache' | 'onClearStore'>,
  reopenSocket: () => void,
): () => void {
  let socketSession: string | undefined;
  const watch = () =>
    client.cache.watch<MeQuery>({
      query: MeDocument,
      optimistic: false,
      callback: (diff) => {
        // Not known yet (a cleared cache, or `me` still on its way): nothing to compare.
        if (!diff.complete || diff.result === undefined) return;
        const session = sessionKeyOf(diff.result.me);
        if (socketSession !== undefined && session !== socketSession) reopenSocket();
        socketSession = session;
      },
    });
  let unwatch = watch();
  const stopRewatching = client.onClearStore(async () => {
    unwatch();
    unwatch = watch();
  });
  return () => {
    stopRewatching();
    unwatch();
  };
}
