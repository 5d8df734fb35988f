import { useApolloClient, useQuery, useSubscription } from '@apollo/client';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  GameEventsDocument,
  LiveGameDocument,
  OfflineChoicesDocument,
  OwnTournamentChangedDocument,
} from '../../../gql/operations';
import { useToastSequence } from '../../../app/toast';
import {
  applyGameEvent,
  offlinePicksOf,
  toastsOf,
  tournamentToastOf,
  withOwnPick,
  type LiveGameView,
  type OfflinePicks,
} from '../state';

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
 * the tournament's own start and finish. For an offline player, their pre-selected choices
 * (`offlineChoices`, read once) are their vote in each round: shown, and what their outcome is
 * computed from.
 */
export function useLiveGame(tournamentId: string, enabled: boolean): LiveGameHandle {
  const client = useApolloClient();
  const showToasts = useToastSequence();
  const [game, setGame] = useState<LiveGameView | undefined>();
  const [error, setError] = useState<unknown>();
  const offlinePlayer = Boolean(game?.player?.isOfflinePlayer);
  const choices = useQuery(OfflineChoicesDocument, {
    variables: { tournamentId },
    skip: !enabled || !offlinePlayer,
  });
  const picks = useMemo<OfflinePicks | undefined>(
    () => choices.data && offlinePicksOf(choices.data.offlineChoices),
    [choices.data],
  );
  // The reducer runs in the subscription's callback: it reads the picks known at that moment.
  const picksRef = useRef(picks);
  picksRef.current = picks;

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
      setGame((current) => applyGameEvent(current, event, picksRef.current));
      const shown = toastsOf(event);
      if (shown.length > 0) showToasts(shown.map((toast) => ({ ...toast, variant: 'info' })));
    },
  });

  useSubscription(OwnTournamentChangedDocument, {
    variables: { tournamentId },
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

  const played = useMemo(() => game && withOwnPick(game, picks), [game, picks]);
  return { game: played, error, setOwnVote, reload };
}
