import { TOTAL_ROUNDS } from '@underdog/rules';
import {
  isOfflineWindowOpen,
  offlineCardActionOf,
  type Tournament,
} from '../src/features/tournaments/display';
import {
  choicesInput,
  nextOpenRound,
  progressOf,
  withChoice,
} from '../src/features/offline/choices';

const START = Date.parse('2030-01-01T12:00:00.000Z');
const tournament: Tournament = {
  id: 't-9',
  title: 'Window',
  description: null,
  status: 'upcoming',
  startAt: new Date(START).toISOString(),
  prize: null,
  participantCount: 0,
  roundTimeSeconds: 15,
};

describe('the offline window', () => {
  it('is open until 5 minutes before the start, and shut from then on', () => {
    expect(isOfflineWindowOpen(tournament, START - 5 * 60_000 - 1)).toBe(true);
    expect(isOfflineWindowOpen(tournament, START - 5 * 60_000)).toBe(false);
    expect(isOfflineWindowOpen(tournament, START + 1)).toBe(false);
  });

  it('is shut for a tournament that is not upcoming, whatever the time', () => {
    expect(isOfflineWindowOpen({ ...tournament, status: 'live' }, START - 60 * 60_000)).toBe(false);
    expect(isOfflineWindowOpen({ ...tournament, status: 'finished' }, START - 60 * 60_000)).toBe(
      false,
    );
  });

  it('drives the offline card: PRE-SUBMIT CHOICES while open, ALREADY REGISTERED once saved, login first', () => {
    const early = START - 10 * 60_000;
    expect(offlineCardActionOf(tournament, early, { loggedIn: true, hasChoices: false })).toEqual({
      label: 'PRE-SUBMIT CHOICES',
      pick: true,
    });
    expect(offlineCardActionOf(tournament, early, { loggedIn: true, hasChoices: true }).label).toBe(
      'ALREADY REGISTERED',
    );
    expect(
      offlineCardActionOf(tournament, early, { loggedIn: false, hasChoices: false }).label,
    ).toBe('Login Required to Play');
    expect(
      offlineCardActionOf({ ...tournament, status: 'live' }, START + 1, {
        loggedIn: true,
        hasChoices: false,
      }).label,
    ).toBe('PLAY NOW');
    expect(
      offlineCardActionOf({ ...tournament, status: 'finished' }, START + 1, {
        loggedIn: true,
        hasChoices: false,
      }).label,
    ).toBe('VIEW RESULTS');
  });
});

describe('offline choices', () => {
  it('re-picking replaces a round, counts progress and moves to the next open round', () => {
    let choices = withChoice(new Map(), 1, 2);
    choices = withChoice(choices, 1, 3);
    expect(choicesInput(choices)).toEqual([{ roundNumber: 1, selectedImageId: '3' }]);
    expect(progressOf(choices)).toEqual({ done: 1, percent: Math.round(100 / TOTAL_ROUNDS) });
    expect(nextOpenRound(choices, 1)).toBe(2);
    for (let round = 2; round <= TOTAL_ROUNDS; round += 1) choices = withChoice(choices, round, 0);
    expect(nextOpenRound(choices, TOTAL_ROUNDS)).toBeUndefined();
    expect(progressOf(choices)).toEqual({ done: TOTAL_ROUNDS, percent: 100 });
  });
});
