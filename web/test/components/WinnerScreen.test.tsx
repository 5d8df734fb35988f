/**
 * @jest-environment jsdom
 */
import { screen } from '@testing-library/react';
import { WinnerScreen } from '../../src/features/game/components/WinnerScreen';
import type { LiveGameView } from '../../src/features/game/state';
import { renderWith } from './render';

function finished(overrides: Partial<LiveGameView> = {}): LiveGameView {
  return {
    tournamentId: 't-1',
    gameId: 'g-1',
    phase: 'finished',
    roundNumber: 3,
    totalRounds: 17,
    roundTimeSeconds: 5,
    phaseEndsAt: null,
    serverTime: '2030-01-01T12:00:00.000Z',
    timeRemaining: 0,
    totalVotes: 2,
    participantCount: 2,
    offlineParticipantCount: 0,
    remainingCount: 1,
    images: [],
    results: [],
    advertisement: null,
    winner: { username: 'alice', userId: 'u-alice', displayName: 'Alice', prize: '$10' },
    player: null,
    ...overrides,
  };
}

describe('the winner screen', () => {
  it('shows the winner CHAMPION! with their own username and the prize', () => {
    renderWith(<WinnerScreen game={finished()} viewer={{ id: 'u-alice', username: 'alice' }} />);
    expect(screen.getByText('CHAMPION!')).toBeTruthy();
    expect(screen.getByText('alice')).toBeTruthy();
    expect(screen.getByText('$10')).toBeTruthy();
    expect(screen.queryByText('Tournament Complete!')).toBeNull();
    expect(screen.getByRole('button', { name: 'Join Another Tournament' })).toBeTruthy();
  });

  it("shows 'Unknown Player' to a winner without a username", () => {
    renderWith(<WinnerScreen game={finished()} viewer={{ id: 'u-alice', username: '' }} />);
    expect(screen.getByText('CHAMPION!')).toBeTruthy();
    expect(screen.getByText('Unknown Player')).toBeTruthy();
  });

  it("shows another player 'Tournament Complete!' with the winner's name, and their elimination", () => {
    renderWith(
      <WinnerScreen
        game={finished({
          player: {
            isParticipant: true,
            isEliminated: true,
            eliminatedInRound: 2,
            isOfflinePlayer: false,
            voteImageId: null,
            disqualificationReason: null,
          },
        })}
        viewer={{ id: 'u-bob', username: 'bob' }}
      />,
    );
    expect(screen.queryByText('CHAMPION!')).toBeNull();
    expect(screen.getByText('Tournament Complete!')).toBeTruthy();
    expect(screen.getByText('alice')).toBeTruthy();
    expect(screen.getByText('ELIMINATED in round 2')).toBeTruthy();
  });

  it("shows a visitor 'Tournament Complete!' with the winner's name", () => {
    renderWith(<WinnerScreen game={finished()} viewer={null} />);
    expect(screen.queryByText('CHAMPION!')).toBeNull();
    expect(screen.getByText('Tournament Complete!')).toBeTruthy();
    expect(screen.getByText('alice')).toBeTruthy();
  });

  it('sends everyone to the results page when the game ended without a winner', () => {
    renderWith(
      <WinnerScreen game={finished({ winner: null })} viewer={{ id: 'u-bob', username: 'bob' }} />,
    );
    expect(screen.getByText('Tournament Complete!')).toBeTruthy();
    expect(screen.getByText('Check results page for final standings')).toBeTruthy();
    expect(screen.queryByText('CHAMPION!')).toBeNull();
  });
});
