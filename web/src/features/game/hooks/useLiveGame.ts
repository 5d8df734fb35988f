import { useApolloClient, useSubscription } from '@apollo/client';
import { useCallback, useEffect, useState } from 'react';
import { GameEventsDocument, LiveGameDocument } from '../../../gql/operations';
import { useToast } from '../../../app/toast';
import { applyGameEvent, toastOf, type LiveGameView } from '../state';

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
 * again a snapshot, also after every reconnect), each event shown as spec §8's toast.
 */
export function useLiveGame(tournamentId: string, enabled: boolean): LiveGameHandle {
  const client = useApolloClient();
  const toast = useToast();
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
      const shown = toastOf(event);
      if (shown)
        toast({
          title: shown.title,
          description: shown.description,
          durationMs: shown.durationMs,
          variant: 'info',
        });
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
