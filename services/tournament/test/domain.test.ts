import { TOTAL_ROUNDS } from '@underdog/rules';
import { isOfflineWindowOpen } from '../src/domain/offline';
import { validateOfflineChoices } from '../src/domain/validation';
import { compareForListing, isSameStart, type Tournament } from '../src/domain/tournament';

const START = new Date('2030-01-01T12:00:00.000Z');
const at = (ms: number) => new Date(START.getTime() + ms);

function tournament(fields: Partial<Tournament>): Tournament {
  return {
    id: fields.title ?? 't',
    title: 't',
    startAt: START,
    status: 'upcoming',
    participantCount: 0,
    roundTimeSeconds: 15,
    createdAt: at(-3_600_000),
    updatedAt: at(-3_600_000),
    ...fields,
  };
}

describe('the offline window', () => {
  it('is open up to the last millisecond before start − 5 minutes, for upcoming tournaments', () => {
    const upcoming = tournament({});
    expect(isOfflineWindowOpen(upcoming, at(-300_001))).toBe(true);
    expect(isOfflineWindowOpen(upcoming, at(-300_000))).toBe(false);
    expect(isOfflineWindowOpen(upcoming, at(1))).toBe(false);
    expect(isOfflineWindowOpen(tournament({ status: 'live' }), at(-3_600_000))).toBe(false);
    expect(isOfflineWindowOpen(tournament({ status: 'finished' }), at(-3_600_000))).toBe(false);
  });
});

describe('offline choices', () => {
  it('come back ordered by round', () => {
    const rounds = Array.from({ length: TOTAL_ROUNDS }, (_, i) => i + 1);
    const choices = [...rounds.slice(2).reverse(), ...rounds.slice(0, 2)].map((round) => ({
      roundNumber: round,
      selectedImageId: '2',
    }));
    expect(validateOfflineChoices(choices).map((c) => c.roundNumber)).toEqual(rounds);
  });

  it('refuse a fractional round number', () => {
    const choices = Array.from({ length: TOTAL_ROUNDS }, (_, i) => ({
      roundNumber: i === 0 ? 1.5 : i + 1,
      selectedImageId: '0',
    }));
    expect(() => validateOfflineChoices(choices)).toThrow(
      `Round numbers must be 1 to ${TOTAL_ROUNDS}, each once`,
    );
  });
});

describe('the start time of an edit', () => {
  it('counts as unchanged within the same minute only', () => {
    const stored = new Date('2030-01-01T12:00:42.123Z');
    expect(isSameStart(new Date('2030-01-01T12:00:00.000Z'), stored)).toBe(true);
    expect(isSameStart(new Date('2030-01-01T12:00:59.999Z'), stored)).toBe(true);
    expect(isSameStart(new Date('2030-01-01T12:01:00.000Z'), stored)).toBe(false);
    expect(isSameStart(new Date('2030-01-01T11:59:59.999Z'), stored)).toBe(false);
  });
});

describe('the listing order', () => {
  it('puts live first, upcoming soonest first, finished latest first', () => {
    const list = [
      tournament({ title: 'finished-old', status: 'finished', startAt: at(-7_200_000) }),
      tournament({ title: 'upcoming-later', startAt: at(7_200_000) }),
      tournament({ title: 'finished-new', status: 'finished', startAt: at(-3_600_000) }),
      tournament({ title: 'live', status: 'live', startAt: at(-60_000) }),
      tournament({ title: 'upcoming-soon', startAt: at(60_000) }),
    ];
    expect(list.sort(compareForListing).map((t) => t.title)).toEqual([
      'live',
      'upcoming-soon',
      'upcoming-later',
      'finished-new',
      'finished-old',
    ]);
  });
});
