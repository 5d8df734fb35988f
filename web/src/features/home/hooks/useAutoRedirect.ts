import { useEffect, useState } from 'react';
import { useGo } from '../../../app/useGo';
import { gamePath } from '../../tournaments/display';
import type { TournamentList } from '../../tournaments/hooks/useTournamentList';

const STORAGE_KEY = 'auto-redirect';

function stored(): boolean {
  try {
    return window.localStorage.getItem(STORAGE_KEY) !== 'off';
  } catch {
    return true;
  }
}

/** The user's auto-redirect setting (on unless turned off), kept in localStorage. */
export function useAutoRedirectSetting(): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState(stored);
  return [
    on,
    (next: boolean) => {
      setOn(next);
      try {
        window.localStorage.setItem(STORAGE_KEY, next ? 'on' : 'off');
      } catch {
        // The setting then lasts for this page only.
      }
    },
  ];
}

/**
 * Spec §2: when a tournament goes live while the user is on / with auto-redirect on, go to it
 * (to play when signed in, to watch otherwise). Learned from the `tournamentsChanged` push.
 */
export function useAutoRedirect(list: TournamentList, enabled: boolean, signedIn: boolean): void {
  const go = useGo();
  const change = list.lastChange;
  useEffect(() => {
    if (!enabled || change?.kind !== 'live') return;
    go(gamePath(change.tournamentId, signedIn ? 'live' : 'watch'));
  }, [change, enabled, signedIn, go]);
}
