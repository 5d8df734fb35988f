/**
 * @jest-environment jsdom
 */
import { screen } from '@testing-library/react';
import { Route, Routes } from 'react-router-dom';
import GamePage from '../../src/features/game/GamePage';
import { MeDocument, TournamentDocument } from '../../src/gql/operations';
import { renderWith } from './render';

// The game screen imports its stylesheet (Vite bundles it); jest has no CSS transform.
jest.mock('../../src/features/game/game.css', () => ({}));

const admin = {
  __typename: 'User' as const,
  id: 'u-admin',
  username: 'admin',
  email: 'admin@example.com',
  displayName: 'Underdog Admin',
  role: 'admin',
  isEmailVerified: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  gamesPlayed: 0,
  wins: 0,
  totalPrizes: 0,
  roundsWon: 0,
  totalRoundsPlayed: 0,
  longestWinStreak: 0,
  currentWinStreak: 0,
  biggestTournamentSize: 0,
  firstWinDate: null,
};

const tournament = {
  __typename: 'Tournament' as const,
  id: 't-cup',
  title: 'Admin Cup',
  description: null,
  status: 'upcoming',
  startAt: '2099-01-01T12:00:00.000Z',
  prize: '$100',
  participantCount: 3,
  roundTimeSeconds: 15,
};

describe('the play screen header', () => {
  it('shows an admin the tournament header without the Admin button (spec §6: isAdmin false)', async () => {
    renderWith(
      <Routes>
        <Route path="/game/:id" element={<GamePage />} />
      </Routes>,
      {
        path: '/game/t-cup?mode=watch',
        mocks: [
          { request: { query: MeDocument }, result: { data: { me: admin } } },
          {
            request: { query: TournamentDocument, variables: { id: 't-cup' } },
            result: { data: { tournament } },
          },
        ],
      },
    );
    expect(await screen.findByText('Admin Cup')).toBeTruthy();
    expect(screen.getByText('Upcoming Tournament')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Admin' })).toBeNull();
  });
});
