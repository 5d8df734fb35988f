import { useApolloClient, useSubscription } from '@apollo/client';
import { useCallback, useEffect, useState } from 'react';
import {
  GameEventsDocument,
  LiveGameDocument,
  TournamentsChangedDocument,
} from '../../../gql/operations';
import { useToastSequence } from '../../../app/toast';
import { applyGameEvent, toastsOf, tournamentToastOf, type LiveGameView } from '../state';

export interface LiveGameHandle {
  game: LiveGameView | undefined;
  error: unknown;
  /** Records the caller's own vote (after castVote succeeds). */
  setOwnVote(imageId: string): void;
  /** Reloads the snapshot (after joining). */
  reload(): void;
}

/**
 * The tournament's live game: the `liveGame` snapshot, then `gameEvents` (whose first event is
 * again a snapshot, also after every reconnect), each event shown as spec §8's toasts, as are
 * the tournament's own start and finish.
 */
export function useLiveGame(tournamentId: string, enabled: boolean): LiveGameHandle {
  const client = useApolloClient();
  const showToasts = useToastSequence();
  const [game, setGame] = useState<LiveGameView | undefined>();
  const [error, setError] = useState<unknown>();

  const reload = useCallback(() => {
    if (!enabled) return;
    client
      .query({ query: LiveGameDocument, variables: { tournamentId }, fetchPolicy: 'network-only' })
      .then(({ data }) => setGame(data.liveGame))
      .catch((e: unknown) => setError(e));
  }, [client, tournamentId, enabled]);

  useEffect(reload, [reload]);

  useSubscription(GameEventsDocument, {
    variables: { tournamentId },
    skip: !enabled,
    fetchPolicy: 'no-cache',
    onData: ({ data }) => {
      const event = data.data?.gameEvents;
      if (!event) return;
      setGame((current) => applyGameEvent(current, event));
      const shown = toastsOf(event);
      if (shown.length > 0) showToasts(shown.map((toast) => ({ ...toast, variant: 'info' })));
    },
  });

  useSubscription(TournamentsChangedDocument, {
    skip: !enabled,
    onData: ({ data }) => {
      const change = data.data?.tournamentsChanged;
      if (change?.tournamentId !== tournamentId) return;
      const shown = tournamentToastOf(change.kind);
      if (shown) showToasts([{ ...shown, variant: 'info' }]);
    },
  });

  const setOwnVote = useCallback((imageId: string) => {
    setGame((current) =>
      current
        ? {
            ...current,
            player: {
              isEliminated: false,
              eliminatedInRound: 0,
              isOfflinePlayer: false,
              disqualificationReason: null,
              ...current.player,
              isParticipant: true,
              voteImageId: imageId,
            },
          }
        : current,
    );
  }, []);

  return { game, error, setOwnVote, reload };
}
