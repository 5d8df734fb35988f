/**
 * @jest-environment jsdom
 */
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { LanguageSwitch } from '../../src/app/LanguageSwitch';
import { LANGUAGE_KEY, setLanguage } from '../../src/app/i18n';
import { fa } from '../../src/app/i18n/fa';
import { toastsOf, type GameEvent } from '../../src/features/game/state';
import { renderWith } from './render';

const ended: GameEvent = {
  __typename: 'GameEnded',
  tournamentId: 't-1',
  gameId: 'g-1',
  occurredAt: '2030-01-01T12:00:00.000Z',
  winner: { username: 'alice', userId: 'u-alice', displayName: 'Alice', prize: '$10' },
  roundsPlayed: 17,
  decidedBy: 'last_standing',
};

describe('the language switch', () => {
  afterEach(() => {
    setLanguage('en');
    localStorage.clear();
  });

  it('switches to Persian right to left and remembers it on the device', async () => {
    renderWith(<LanguageSwitch />);
    fireEvent.click(screen.getByRole('button', { name: /Language: English/ }));
    fireEvent.click(await screen.findByText('فارسی'));
    await waitFor(() => expect(document.documentElement.dir).toBe('rtl'));
    expect(document.documentElement.lang).toBe('fa');
    expect(localStorage.getItem(LANGUAGE_KEY)).toBe('fa');
    expect(screen.getByRole('button', { name: /زبان: فارسی/ })).toBeTruthy();
  });

  it("shows the game's end toasts in Persian, with the same durations", () => {
    setLanguage('fa');
    expect(toastsOf(ended)).toEqual([
      { title: fa.toasts.gameComplete, durationMs: 5_000 },
      { title: fa.toasts.winnerAnnounced, description: 'alice', durationMs: 8_000 },
      { title: fa.toasts.gameFinished, description: 'alice', durationMs: 5_000 },
    ]);
  });
});
