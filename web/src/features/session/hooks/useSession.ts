import { useApolloClient, useQuery } from '@apollo/client';
import { useCallback } from 'react';
import { MeDocument, type UserFieldsFragment } from '../../../gql/operations';

export type SessionUser = UserFieldsFragment;

export interface Session {
  /** The signed-in user; null for a visitor. */
  user: SessionUser | null;
  loading: boolean;
  isAdmin: boolean;
  /** Replaces the cached user (after login, registration, verification, profile edits). */
  setUser(user: SessionUser | null): void;
}

/** The current user from `me`, fetched once and kept in the Apollo cache. */
export function useSession(): Session {
  const client = useApolloClient();
  const { data, loading } = useQuery(MeDocument);
  const setUser = useCallback(
    (user: SessionUser | null) => client.writeQuery({ query: MeDocument, data: { me: user } }),
    [client],
  );
  const user = data?.me ?? null;
  return { user, loading: loading && !data, isAdmin: user?.role === 'admin', setUser };
}

/** Spec §4: where a signed-in user lands after login. */
export function homePathOf(user: SessionUser): string {
  if (!user.isEmailVerified) return '/verify-email';
  return user.role === 'admin' ? '/admin' : '/';
}

/** Two letters for the avatar: the first two of the display name, else of the username. */
export function initialsOf(user: Pick<SessionUser, 'displayName' | 'username'>): string {
  const source = (user.displayName || user.username).trim();
  return source.slice(0, 2).toUpperCase();
}
