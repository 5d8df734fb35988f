/**
 * @jest-environment jsdom
 */
import { screen } from '@testing-library/react';
import { HeroCard } from '../../src/features/home/components/HeroCard';
import type { Tournament } from '../../src/features/tournaments/display';
import { renderWith } from './render';

const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const minutes = (n: number) => n * 60_000;

function tournament(overrides: Partial<Tournament> = {}): Tournament {
  return {
    id: 't-1',
    title: 'Friday Night Underdog',
    description: null,
    status: 'upcoming',
    startAt: new Date(NOW + minutes(60)).toISOString(),
    prize: '$5,000',
    participantCount: 12,
    roundTimeSeconds: 15,
    ...overrides,
  };
}

const signedIn = { loggedIn: true, hasChoices: false };

describe('the hero card', () => {
  beforeEach(() => jest.useFakeTimers({ now: NOW }));
  afterEach(() => jest.useRealTimers());

  it('says NO ACTIVE TOURNAMENTS and Stay Tuned! without a tournament', () => {
    renderWith(<HeroCard viewer={signedIn} />);
    expect(screen.getByText('NO ACTIVE TOURNAMENTS')).toBeTruthy();
    expect(screen.getByText('Stay Tuned!')).toBeTruthy();
  });

  it('live: ACTIVE TOURNAMENT, TOURNAMENT ACTIVE, ENDS IN and PLAY NOW to the live game', () => {
    renderWith(
      <HeroCard
        tournament={tournament({
          status: 'live',
          startAt: new Date(NOW - minutes(10)).toISOString(),
        })}
        viewer={signedIn}
      />,
    );
    expect(screen.getByText('ACTIVE TOURNAMENT')).toBeTruthy();
    expect(screen.getByText('TOURNAMENT ACTIVE')).toBeTruthy();
    expect(screen.getByText('ENDS IN')).toBeTruthy();
    const button = screen.getByRole('button', { name: 'PLAY NOW' }) as HTMLButtonElement;
    expect(button.disabled).toBe(false);
  });

  it('upcoming with the window open and no choices: NEXT TOURNAMENT, STARTS IN, PLAY OFFLINE and the note', () => {
    renderWith(<HeroCard tournament={tournament()} viewer={signedIn} />);
    expect(screen.getByText('NEXT TOURNAMENT')).toBeTruthy();
    expect(screen.getByText('STARTS IN')).toBeTruthy();
    expect(
      (screen.getByRole('button', { name: 'PLAY OFFLINE' }) as HTMLButtonElement).disabled,
    ).toBe(false);
    expect(
      screen.getByText('Play offline now, or wait to play live when tournament starts!'),
    ).toBeTruthy();
  });

  it('upcoming with choices saved: ALREADY REGISTERED, disabled', () => {
    renderWith(
      <HeroCard tournament={tournament()} viewer={{ loggedIn: true, hasChoices: true }} />,
    );
    expect(
      (screen.getByRole('button', { name: 'ALREADY REGISTERED' }) as HTMLButtonElement).disabled,
    ).toBe(true);
  });

  it('upcoming within 5 minutes of the start: OFFLINE CLOSED, disabled', () => {
    renderWith(
      <HeroCard
        tournament={tournament({ startAt: new Date(NOW + minutes(4)).toISOString() })}
        viewer={signedIn}
      />,
    );
    expect(
      (screen.getByRole('button', { name: 'OFFLINE CLOSED' }) as HTMLButtonElement).disabled,
    ).toBe(true);
  });

  it('finished: TOURNAMENT FINISHED, FINISHED / COMPLETED and VIEW RESULTS', () => {
    renderWith(
      <HeroCard
        tournament={tournament({
          status: 'finished',
          startAt: new Date(NOW - minutes(120)).toISOString(),
        })}
        viewer={signedIn}
      />,
    );
    expect(screen.getByText('TOURNAMENT FINISHED')).toBeTruthy();
    expect(screen.getByText('FINISHED')).toBeTruthy();
    expect(screen.getByText('COMPLETED')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'VIEW RESULTS' })).toBeTruthy();
  });

  it('falls back to the default description, and shows prize and participant count', () => {
    renderWith(<HeroCard tournament={tournament()} viewer={signedIn} />);
    expect(screen.getByText('The ultimate test of strategic thinking')).toBeTruthy();
    expect(screen.getByText('$5,000')).toBeTruthy();
    expect(screen.getByText('12')).toBeTruthy();
  });

  it('reads the offline window on the server clock, not the local one', () => {
    // Locally 6 minutes before the start (open), but the server is 2 minutes ahead (closed).
    const startAt = new Date(NOW + minutes(6)).toISOString();
    renderWith(<HeroCard tournament={tournament({ startAt })} viewer={signedIn} />, {
      offsetMs: minutes(2),
    });
    expect(screen.getByRole('button', { name: 'OFFLINE CLOSED' })).toBeTruthy();
  });
});
