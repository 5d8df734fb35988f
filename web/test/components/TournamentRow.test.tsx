/**
 * @jest-environment jsdom
 */
import { screen } from '@testing-library/react';
import { TournamentRow } from '../../src/features/home/components/TournamentRow';
import type { Tournament } from '../../src/features/tournaments/display';
import { renderWith } from './render';

const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const minutes = (n: number) => n * 60_000;
const at = (offset: number) => new Date(NOW + offset).toISOString();

const base: Tournament = {
  id: 't-2',
  title: 'Sunday Cup',
  description: 'x',
  status: 'upcoming',
  startAt: at(minutes(60)),
  prize: '$100',
  participantCount: 3,
  roundTimeSeconds: 15,
};

function button(label: string) {
  return screen.getByRole('button', { name: label }) as HTMLButtonElement;
}

describe('a tournament list row', () => {
  beforeEach(() => jest.useFakeTimers({ now: NOW }));
  afterEach(() => jest.useRealTimers());

  it.each([
    ['a visitor, upcoming', base, { loggedIn: false, hasChoices: false }, 'LOGIN TO PLAY', true],
    [
      'a visitor, live',
      { ...base, status: 'live' as const, startAt: at(-minutes(1)) },
      { loggedIn: false, hasChoices: false },
      'LOGIN TO PLAY',
      true,
    ],
    [
      'a visitor, finished',
      { ...base, status: 'finished' as const, startAt: at(-minutes(90)) },
      { loggedIn: false, hasChoices: false },
      'RESULTS',
      false,
    ],
    [
      'a user, live',
      { ...base, status: 'live' as const, startAt: at(-minutes(1)) },
      { loggedIn: true, hasChoices: false },
      'PLAY',
      false,
    ],
    [
      'a user, upcoming, window open',
      base,
      { loggedIn: true, hasChoices: false },
      'PLAY OFFLINE',
      false,
    ],
    [
      'a user, upcoming, choices saved',
      base,
      { loggedIn: true, hasChoices: true },
      'REGISTERED',
      true,
    ],
    [
      'a user, upcoming, window shut',
      { ...base, startAt: at(minutes(3)) },
      { loggedIn: true, hasChoices: false },
      'CLOSED',
      true,
    ],
  ])('%s: %s', (_name, tournament, viewer, label, disabled) => {
    renderWith(<TournamentRow tournament={tournament} viewer={viewer} />);
    expect(button(label).disabled).toBe(disabled);
  });

  it('shows ACTIVE or UPCOMING, prize, participants, and Finished for a finished one', () => {
    const { unmount } = renderWith(
      <TournamentRow tournament={base} viewer={{ loggedIn: true, hasChoices: false }} />,
    );
    expect(screen.getByText('UPCOMING')).toBeTruthy();
    expect(screen.getByText('$100', { exact: false })).toBeTruthy();
    unmount();
    renderWith(
      <TournamentRow
        tournament={{ ...base, status: 'live', startAt: at(-minutes(1)) }}
        viewer={{ loggedIn: true, hasChoices: false }}
      />,
    );
    expect(screen.getByText('ACTIVE')).toBeTruthy();
  });

  it('says Finished instead of a countdown when finished', () => {
    renderWith(
      <TournamentRow
        tournament={{ ...base, status: 'finished', startAt: at(-minutes(90)) }}
        viewer={{ loggedIn: true, hasChoices: false }}
      />,
    );
    expect(screen.getByText('Finished')).toBeTruthy();
    expect(screen.queryByRole('timer')).toBeNull();
  });
});
