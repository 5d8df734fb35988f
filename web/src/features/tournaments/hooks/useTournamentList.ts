import { useQuery, useSubscription } from '@apollo/client';
import { useSocketStatus } from '../../../app/socketStatus';
import {
  TournamentsChangedDocument,
  TournamentsDocument,
  type TournamentsChangedSubscription,
} from '../../../gql/operations';
import type { Tournament } from '../display';

/** Spec §9: the list is refetched every 5 s where it polls. */
export const TOURNAMENT_LIST_POLL_MS = 5_000;

export interface TournamentList {
  tournaments: Tournament[];
  loading: boolean;
  error: boolean;
  /** The last change pushed over the socket (e.g. kind `live`), for redirects and toasts. */
  lastChange: TournamentsChangedSubscription['tournamentsChanged'] | undefined;
}

/**
 * Every tournament, kept current by the `tournamentsChanged` subscription; the list is polled
 * (every 5 s) only while the socket is not connected (spec §4/§7), or always with `poll`
 * (the offline screen for a signed-in user).
 */
export function useTournamentList(options: { poll?: boolean } = {}): TournamentList {
  const socket = useSocketStatus();
  const polling = options.poll === true || socket !== 'connected';
  const query = useQuery(TournamentsDocument, {
    pollInterval: polling ? TOURNAMENT_LIST_POLL_MS : 0,
    notifyOnNetworkStatusChange: false,
  });
  const { data: change } = useSubscription(TournamentsChangedDocument, {
    onData: ({ client, data }) => {
      const tournaments = data.data?.tournamentsChanged.tournaments;
      if (tournaments) client.writeQuery({ query: TournamentsDocument, data: { tournaments } });
    },
  });
  return {
    tournaments: query.data?.tournaments ?? [],
    loading: query.loading && !query.data,
    error: Boolean(query.error) && !query.data,
    lastChange: change?.tournamentsChanged,
  };
}
