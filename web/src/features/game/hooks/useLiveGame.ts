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
  /** Records the caller's join (after joinTournament answers them a participant). */
  setJoined(): void;
}

/**
 * The tournament's live game: the `liveGame` snapshot, then `gameEvents` (whose first event is
 * again a snapshot, also after every reconnect), each event shown as spec §8's toasts, as are
 * the tournament's own start and finish. For an offline player, their pre-selected choices
 * (`offlineChoices`, read once) are their vote in each round: shown, and what their outcome is
 * computed from.
 *
 * The query only fills the page until the feed's own snapshot comes: an answer that arrives
 * after it may have been read before the feed's latest event (a round that opened meanwhile)
 * and is dropped, never shown over the newer state. A join is kept the same way: a snapshot read
 * before it still shows the player as a participant.
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

  // Whether the feed's snapshot came (its state is the newest), and whether the caller joined.
  const fed = useRef(false);
  const joined = useRef(false);
  const withJoin = useCallback(
    (view: LiveGameView): LiveGameView =>
      joined.current && view.player && !view.player.isParticipant
        ? { ...view, player: { ...view.player, isParticipant: true } }
        : view,
    [],
  );

  useEffect(() => {
    if (!enabled) return;
    fed.current = false;
    joined.current = false;
    client
      .query({ query: LiveGameDocument, variables: { tournamentId }, fetchPolicy: 'network-only' })
      .then(({ data }) => {
        if (!fed.current) setGame(withJoin(data.liveGame));
      })
      .catch((e: unknown) => setError(e));
  }, [client, tournamentId, enabled, withJoin]);

  useSubscription(GameEventsDocument, {
    variables: { tournamentId },
    skip: !enabled,
    fetchPolicy: 'no-cache',
    onData: ({ data }) => {
      const event = data.data?.gameEvents;
      if (!event) return;
      if (event.__typename === 'GameSnapshot') fed.current = true;
      setGame((current) => {
        const next = applyGameEvent(current, event, picksRef.current);
        return next && event.__typename === 'GameSnapshot' ? withJoin(next) : next;
      });
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

  const setJoined = useCallback(() => {
    joined.current = true;
    setGame((current) => current && withJoin(current));
  }, [withJoin]);

  const played = useMemo(() => game && withOwnPick(game, picks), [game, picks]);
  return { game: played, error, setOwnVote, setJoined };
}
