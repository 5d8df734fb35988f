/**
 * @jest-environment jsdom
 */
import {
  ApolloClient,
  ApolloLink,
  ApolloProvider,
  InMemoryCache,
  Observable,
  type FetchResult,
} from '@apollo/client';
import { act, renderHook, waitFor } from '@testing-library/react';
import { App as AntApp } from 'antd';
import type { ReactNode } from 'react';
import '../src/app/i18n';
import { useLiveGame } from '../src/features/game/hooks/useLiveGame';
import type { GameEvent, LiveGameView } from '../src/features/game/state';
import possibleTypes from '../src/gql/possibleTypes';

const images = [0, 1, 2, 3].map((m) => ({
  id: `round-1-image-${m}`,
  url: `/images/sample-${m}.svg`,
  alt: `Sample ${m}`,
}));

/** The lobby of tournament t1 as a signed-in player who has not joined sees it. */
const lobby: LiveGameView = {
  __typename: 'LiveGame',
  tournamentId: 't1',
  gameId: '',
  phase: 'waiting',
  roundNumber: 0,
  totalRounds: 17,
  roundTimeSeconds: 8,
  images: [],
  phaseEndsAt: null,
  serverTime: '2026-11-30T05:00:00.000Z',
  timeRemaining: 0,
  totalVotes: 0,
  participantCount: 0,
  offlineParticipantCount: 0,
  remainingCount: 0,
  results: [],
  advertisement: null,
  winner: null,
  player: {
    __typename: 'LivePlayer',
    isParticipant: false,
    isEliminated: false,
    eliminatedInRound: 0,
    isOfflinePlayer: false,
    voteImageId: null,
    disqualificationReason: null,
  },
} as LiveGameView;

const at = { tournamentId: 't1', gameId: 'g1', occurredAt: '2026-11-30T05:00:15.000Z' };
const snapshot = (game: LiveGameView): GameEvent =>
  ({ __typename: 'GameSnapshot', ...at, game }) as GameEvent;
const round1: GameEvent = {
  __typename: 'RoundVotingStarted',
  ...at,
  roundNumber: 1,
  images,
  roundTimeSeconds: 8,
  phaseEndsAt: '2026-11-30T05:00:23.000Z',
  timeRemaining: 8,
  remainingCount: 2,
  offlineRemainingCount: 0,
} as GameEvent;

/**
 * A server the test answers by hand: the `liveGame` query is answered when the test says, and
 * the `gameEvents` feed delivers what the test pushes, as the gateway's socket would.
 */
function handServer() {
  let answerQuery: ((game: LiveGameView) => void) | undefined;
  let feed: ((event: GameEvent) => void) | undefined;
  const link = new ApolloLink((operation) => {
    return new Observable<FetchResult>((observer) => {
      // The tournament's own changes (the other feed the hook follows) never come here.
      if (operation.operationName === 'GameEvents') {
        feed = (event) => observer.next({ data: { gameEvents: event } });
      } else if (operation.operationName === 'LiveGame') {
        answerQuery = (game) => {
          observer.next({ data: { liveGame: game } });
          observer.complete();
        };
      }
    });
  });
  const client = new ApolloClient({
    link,
    cache: new InMemoryCache({ possibleTypes: possibleTypes.possibleTypes }),
  });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <ApolloProvider client={client}>
      <AntApp>{children}</AntApp>
    </ApolloProvider>
  );
  return {
    wrapper,
    async answer(game: LiveGameView) {
      await waitFor(() => expect(answerQuery).toBeDefined());
      act(() => answerQuery!(game));
    },
    async push(event: GameEvent) {
      await waitFor(() => expect(feed).toBeDefined());
      act(() => feed!(event));
    },
  };
}

describe('the live game on the page (useLiveGame)', () => {
  it('keeps a round that opened on the feed when an older liveGame answer arrives after it', async () => {
    const server = handServer();
    const { result } = renderHook(() => useLiveGame('t1', true), { wrapper: server.wrapper });
    await server.push(snapshot(lobby));
    await server.push(round1);
    await waitFor(() => expect(result.current.game?.phase).toBe('voting'));
    // Read in the lobby, answered late (a loaded server): it must not take the page back there.
    await server.answer(lobby);
    // The answer's promise settles after the link's `next`: let it, and whatever it sets, land.
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(result.current.game).toMatchObject({ phase: 'voting', roundNumber: 1 });
    expect(result.current.game?.images).toHaveLength(4);
  });

  it('shows the liveGame answer until the feed has its snapshot', async () => {
    const server = handServer();
    const { result } = renderHook(() => useLiveGame('t1', true), { wrapper: server.wrapper });
    await server.answer(lobby);
    await waitFor(() => expect(result.current.game?.phase).toBe('waiting'));
    await server.push(snapshot({ ...lobby, participantCount: 3 }));
    await waitFor(() => expect(result.current.game?.participantCount).toBe(3));
  });

  it('keeps the player a participant once joined, whatever snapshot read before the join arrives', async () => {
    const server = handServer();
    const { result } = renderHook(() => useLiveGame('t1', true), { wrapper: server.wrapper });
    await server.answer(lobby);
    await waitFor(() => expect(result.current.game).toBeDefined());
    act(() => result.current.setJoined());
    expect(result.current.game?.player?.isParticipant).toBe(true);
    // The feed's snapshot was read before the join went through.
    await server.push(snapshot(lobby));
    await server.push(round1);
    await waitFor(() => expect(result.current.game?.phase).toBe('voting'));
    expect(result.current.game?.player?.isParticipant).toBe(true);
  });
});
