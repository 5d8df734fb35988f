import {
  optionOf,
  positionLabel,
  previewOf,
  roundSummariesOf,
  statsOf,
  validateAd,
  validateTournament,
} from '../src/features/admin/validation';

const NOW = Date.parse('2026-11-23T21:00:00');

describe('the tournament form (spec §5)', () => {
  const form = { title: 'Cup', description: '', prize: '', startAt: '2026-11-23T22:00' };
  it('requires a title and a start time', () => {
    expect(validateTournament({ ...form, title: ' ', startAt: '' }, NOW)).toEqual({
      title: 'Title is required',
      startAt: 'Start time is required',
    });
  });
  it('refuses a start in the past, except an unchanged one on edit', () => {
    const past = { ...form, startAt: '2026-11-23T20:00' };
    expect(validateTournament(past, NOW)).toEqual({ startAt: 'Start time must be in the future' });
    expect(validateTournament(past, NOW, '2026-11-23T20:00')).toEqual({});
    expect(validateTournament(form, NOW)).toEqual({});
  });
});

describe('the advertisement form (spec §5)', () => {
  const form = {
    title: 'Ad',
    type: 'text' as const,
    content: 'Hi',
    displayPosition: 'between_rounds' as const,
    duration: '5',
    isActive: true,
  };
  it('requires title and content on create only', () => {
    expect(validateAd({ ...form, title: '', content: '' }, true)).toEqual({
      title: 'Title is required',
      content: 'Content is required',
    });
    expect(validateAd({ ...form, title: '', content: '' }, false)).toEqual({});
  });
  it('bounds the duration to 1-60, falling back to 5 when not a number', () => {
    expect(validateAd({ ...form, duration: '61' }, true)).toEqual({
      duration: 'Duration must be between 1 and 60 seconds',
    });
    expect(validateAd({ ...form, duration: '0' }, true)).toEqual({
      duration: 'Duration must be between 1 and 60 seconds',
    });
    expect(validateAd({ ...form, duration: '' }, true)).toEqual({});
  });
});

describe('the dashboard figures', () => {
  it('counts active, live and upcoming tournaments and sums the players', () => {
    expect(
      statsOf([
        { status: 'live', participantCount: 3 },
        { status: 'upcoming', participantCount: 2 },
        { status: 'finished', participantCount: 9 },
      ]),
    ).toEqual({ total: 2, live: 1, upcoming: 1, players: 14 });
  });
  it('cuts ad content at 100 characters plus an ellipsis and shows positions with spaces', () => {
    expect(previewOf('x'.repeat(101))).toBe(`${'x'.repeat(100)}...`);
    expect(previewOf('short')).toBe('short');
    expect(positionLabel('between_rounds')).toBe('between rounds');
  });
  it('derives the survival curve and the vote split from the details', () => {
    const images = [{ id: 'a' }, { id: 'b' }];
    const summaries = roundSummariesOf({
      totalPlayers: 5,
      rounds: [
        {
          roundNumber: 1,
          images,
          votes: [{ imageId: 'a' }, { imageId: 'a' }, { imageId: 'b' }],
          eliminatedPlayers: [1, 2, 3],
        },
        { roundNumber: 2, images, votes: [{ imageId: 'b' }], eliminatedPlayers: [] },
      ],
    });
    expect(summaries).toEqual([
      { roundNumber: 1, votes: 3, remaining: 2, split: [2, 1] },
      { roundNumber: 2, votes: 1, remaining: 2, split: [0, 1] },
    ]);
    expect([optionOf(images, 'b'), optionOf(images, 'zz')]).toEqual(['2', '?']);
  });
});
