/**
 * @jest-environment jsdom
 */
// Issue 39, point 3: after the game's final round nothing announces a next round — neither the
// results nor the after-game ad — while an ordinary round still does.
import { act, screen } from '@testing-library/react';
import { AdScreen } from '../../src/features/game/components/AdScreen';
import { ResultsScreen } from '../../src/features/game/components/ResultsScreen';
import { RESULTS_AUTO_ADVANCE_MS, type LiveGameView } from '../../src/features/game/state';
import { renderWith } from './render';

const T0 = Date.parse('2030-01-01T12:00:00.000Z');
const NEXT_ROUND = 'Next round starting automatically...';
const AD_NEXT = 'The next round will start automatically after the ad.';
const AD_FINAL = 'The winner will be announced after the ad.';

function state(overrides: Partial<LiveGameView>): LiveGameView {
  return {
    tournamentId: 't-1',
    gameId: 'g-1',
    phase: 'results',
    roundNumber: 3,
    totalRounds: 17,
    roundTimeSeconds: 5,
    phaseEndsAt: new Date(T0 + 10_000).toISOString(),
    serverTime: new Date(T0).toISOString(),
    timeRemaining: 10,
    totalVotes: 2,
    participantCount: 3,
    offlineParticipantCount: 0,
    remainingCount: 2,
    images: [0, 1, 2, 3].map((m) => ({ id: `round-3-image-${m}`, url: '', alt: `Image ${m}` })),
    results: [],
    advertisement: null,
    winner: null,
    player: null,
    ...overrides,
  };
}

const afterGameAd = {
  id: 'ad-1',
  title: 'Underdog Snacks',
  type: 'text' as const,
  content: 'Crunchy.',
  displayPosition: 'after_game' as const,
  isActive: true,
  duration: 5,
};

describe('the results of a round', () => {
  beforeEach(() => {
    jest.useFakeTimers();
    jest.setSystemTime(T0);
  });
  afterEach(() => jest.useRealTimers());

  function advance() {
    act(() => {
      jest.advanceTimersByTime(RESULTS_AUTO_ADVANCE_MS);
    });
  }

  it('announce the next round after 4 s while players remain', () => {
    renderWith(<ResultsScreen game={state({})} />);
    expect(screen.queryByText(NEXT_ROUND)).toBeNull();
    advance();
    expect(screen.getByText(NEXT_ROUND)).toBeTruthy();
  });

  it('announce no next round after round 17', () => {
    renderWith(<ResultsScreen game={state({ roundNumber: 17, remainingCount: 4 })} />);
    advance();
    expect(screen.queryByText(NEXT_ROUND)).toBeNull();
  });

  it('announce no next round after a round that left one player', () => {
    renderWith(<ResultsScreen game={state({ remainingCount: 1 })} />);
    advance();
    expect(screen.queryByText(NEXT_ROUND)).toBeNull();
  });
});

describe('the advertisement', () => {
  it('between rounds says the next round starts after it', () => {
    renderWith(<AdScreen game={state({ phase: 'advertisement' })} />);
    expect(screen.getByText(AD_NEXT)).toBeTruthy();
    expect(screen.queryByText(AD_FINAL)).toBeNull();
  });

  it('after the game says the winner comes next, not a next round', () => {
    renderWith(
      <AdScreen
        game={state({ phase: 'advertisement', roundNumber: 5, advertisement: afterGameAd })}
      />,
    );
    expect(screen.getByText(AD_FINAL)).toBeTruthy();
    expect(screen.queryByText(AD_NEXT)).toBeNull();
  });

  it('after the final round (the fallback ad) says the winner comes next too', () => {
    renderWith(<AdScreen game={state({ phase: 'advertisement', remainingCount: 1 })} />);
    expect(screen.getByText(AD_FINAL)).toBeTruthy();
    expect(screen.queryByText(AD_NEXT)).toBeNull();
  });
});
