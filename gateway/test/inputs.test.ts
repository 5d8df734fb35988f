import { AppError } from '@underdog/kit';
import {
  advertisementChangesInput,
  advertisementPositionQuery,
  newAdvertisementInput,
  offlineChoicesInput,
  tournamentInput,
} from '../src/inputs';
import { parseBody } from '../src/validation';

/** The 400 a body gets at the edge, as `{ message, code }`. */
function rejection(parse: () => unknown) {
  try {
    parse();
  } catch (error) {
    if (error instanceof AppError) return { message: error.message, code: error.publicCode };
    throw error;
  }
  throw new Error('expected the body to be rejected');
}

describe('tournament bodies at the edge', () => {
  it('passes a complete body on, the start as a Date', () => {
    expect(
      parseBody(tournamentInput, {
        title: 'Friday Cup',
        description: 'Big one',
        prize: '$5,000',
        startAt: '2030-01-01T12:00:00.000Z',
        roundTimeSeconds: 20,
      }),
    ).toEqual({
      title: 'Friday Cup',
      description: 'Big one',
      prize: '$5,000',
      startAt: new Date('2030-01-01T12:00:00.000Z'),
      roundTimeSeconds: 20,
    });
  });

  it('lets missing title and start through, for the service to say they are required', () => {
    expect(parseBody(tournamentInput, {})).toEqual({ title: '' });
    expect(parseBody(tournamentInput, { title: null, startAt: '' })).toEqual({ title: '' });
  });

  it('reads null description and prize as absent', () => {
    const input = parseBody(tournamentInput, {
      title: 'Cup',
      startAt: '2030-01-01T12:00:00+02:00',
      description: null,
      prize: null,
    });
    expect(input).toEqual({ title: 'Cup', startAt: new Date('2030-01-01T10:00:00.000Z') });
  });

  it("ignores the edit form's original start time", () => {
    const input = parseBody(tournamentInput, {
      title: 'Cup',
      startAt: '2030-01-01T12:00:00.000Z',
      originalStartAt: '2030-01-01T12:00:00.000Z',
    });
    expect(input).not.toHaveProperty('originalStartAt');
  });

  it('names every ill-typed field', () => {
    expect(
      rejection(() =>
        parseBody(tournamentInput, { title: 7, startAt: 'tomorrow', roundTimeSeconds: 7.5 }),
      ),
    ).toEqual({
      message:
        'title must be a string; startAt must be an ISO 8601 date-time with a time zone; roundTimeSeconds must be a whole number',
      code: 'BAD_REQUEST',
    });
  });

  it('wants a start with a time zone, not a local time', () => {
    expect(
      rejection(() => parseBody(tournamentInput, { title: 'Cup', startAt: '2030-01-01T12:00' })),
    ).toMatchObject({ message: 'startAt must be an ISO 8601 date-time with a time zone' });
  });
});

describe('offline choices bodies at the edge', () => {
  it('passes the choices on as sent, whatever their count (the service checks the rounds)', () => {
    const choices = [{ roundNumber: 18, selectedImageId: '7' }];
    expect(parseBody(offlineChoicesInput, { choices })).toEqual({ choices });
  });

  it('names the ill-typed parts of a choice', () => {
    expect(
      rejection(() =>
        parseBody(offlineChoicesInput, {
          choices: [{ roundNumber: '1', selectedImageId: 0 }, 'x', { roundNumber: -1 }],
        }),
      ),
    ).toEqual({
      message: [
        'choices.0.roundNumber must be a number',
        'choices.0.selectedImageId must be a string',
        'choices.1 must be an object',
        'choices.2.roundNumber must not be negative',
        'choices.2.selectedImageId is required',
      ].join('; '),
      code: 'BAD_REQUEST',
    });
  });

  it('wants a choices array', () => {
    expect(rejection(() => parseBody(offlineChoicesInput, {}))).toMatchObject({
      message: 'choices is required',
    });
    expect(rejection(() => parseBody(offlineChoicesInput, { choices: {} }))).toMatchObject({
      message: 'choices must be an array',
    });
  });
});

describe('advertisement bodies at the edge', () => {
  it('lets empty texts through for the service to name, and drops nulls', () => {
    expect(parseBody(newAdvertisementInput, { duration: null, isActive: null })).toEqual({
      title: '',
      type: '',
      content: '',
    });
  });

  it('keeps only the fields an edit gives', () => {
    expect(parseBody(advertisementChangesInput, { isActive: false })).toEqual({ isActive: false });
  });

  it('names ill-typed fields', () => {
    expect(
      rejection(() =>
        parseBody(advertisementChangesInput, { title: 1, duration: '10', isActive: 'yes' }),
      ),
    ).toEqual({
      message: 'title must be a string; duration must be a number; isActive must be true or false',
      code: 'BAD_REQUEST',
    });
  });

  it('lists between-rounds ads when no position is asked for, and wants one position', () => {
    expect(parseBody(advertisementPositionQuery, {})).toEqual({ position: 'between_rounds' });
    expect(parseBody(advertisementPositionQuery, { position: 'after_game' })).toEqual({
      position: 'after_game',
    });
    expect(
      rejection(() => parseBody(advertisementPositionQuery, { position: ['a', 'b'] })),
    ).toMatchObject({ message: 'position must be a string' });
  });
});
