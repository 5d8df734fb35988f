import { useSession } from '../../session/hooks/useSession';
import { useHasOfflineChoices } from '../../tournaments/hooks/useHasOfflineChoices';
import type { Tournament, Viewer } from '../../tournaments/display';
import type { ReactElement } from 'react';

/** Works out the viewer (signed in? pre-registered?) for one tournament and renders with it. */
export function WithViewer({
  tournament,
  children,
}: {
  tournament: Tournament;
  children: (viewer: Viewer) => ReactElement;
}) {
  const { user } = useSession();
  const hasChoices = useHasOfflineChoices(
    tournament.id,
    user !== null && tournament.status === 'upcoming',
  );
  return children({ loggedIn: user !== null, hasChoices });
}
