import {
  AdvertisementSchema,
  Role,
  TournamentSchema,
  TournamentStatus,
  create,
  timestampFromDate,
  type MessageInitShape,
} from '@underdog/proto';
import { actorOf } from '../src/actors';
import { toAdvertisementView } from '../src/ads';
import { RequestSession, SessionCookie, type RequestOrigin } from '../src/session';
import { toTournamentView } from '../src/tournaments';
import { userMessage } from './support';

const startAt = new Date('2030-01-01T12:00:00.000Z');

function tournament(fields: Partial<MessageInitShape<typeof TournamentSchema>> = {}) {
  return create(TournamentSchema, {
    id: 't-1',
    title: 'Friday Cup',
    status: TournamentStatus.UPCOMING,
    startAt: timestampFromDate(startAt),
    participantCount: 3,
    roundTimeSeconds: 15,
    ...fields,
  });
}

describe('the tournament clients see', () => {
  it('has every field, with null for an absent description and prize', () => {
    expect(toTournamentView(tournament())).toEqual({
      id: 't-1',
      title: 'Friday Cup',
      description: null,
      status: 'upcoming',
      startAt: '2030-01-01T12:00:00.000Z',
      prize: null,
      participantCount: 3,
      roundTimeSeconds: 15,
    });
  });

  it('keeps a description and prize as the admin typed them', () => {
    expect(toTournamentView(tournament({ description: 'Big one', prize: '$5,000' }))).toMatchObject(
      { description: 'Big one', prize: '$5,000' },
    );
  });

  it.each([
    [TournamentStatus.UPCOMING, 'upcoming'],
    [TournamentStatus.LIVE, 'live'],
    [TournamentStatus.FINISHED, 'finished'],
  ])('names status %s %s', (status, name) => {
    expect(toTournamentView(tournament({ status })).status).toBe(name);
  });

  it('refuses a tournament without a status or start rather than inventing one', () => {
    expect(() => toTournamentView(tournament({ status: TournamentStatus.UNSPECIFIED }))).toThrow(
      /incomplete tournament/,
    );
    expect(() => toTournamentView(tournament({ startAt: undefined }))).toThrow(
      /incomplete tournament/,
    );
  });
});

describe('the advertisement clients see', () => {
  it('has every field, timestamps as ISO 8601', () => {
    const advertisement = create(AdvertisementSchema, {
      id: 'ad-1',
      title: 'Buy',
      type: 'text',
      content: 'Now',
      displayPosition: 'between_rounds',
      isActive: true,
      duration: 5,
      createdAt: timestampFromDate(startAt),
      updatedAt: timestampFromDate(new Date('2030-01-02T00:00:00.000Z')),
    });
    expect(toAdvertisementView(advertisement)).toEqual({
      id: 'ad-1',
      title: 'Buy',
      type: 'text',
      content: 'Now',
      displayPosition: 'between_rounds',
      isActive: true,
      duration: 5,
      createdAt: '2030-01-01T12:00:00.000Z',
      updatedAt: '2030-01-02T00:00:00.000Z',
    });
  });
});

describe('the actor passed to the services', () => {
  /** A session whose auth service answers only GetSessionActor: the actor needs no user read. */
  const originWith = (user: ReturnType<typeof userMessage> | undefined): RequestOrigin => {
    const auth = {
      getSessionActor: () =>
        Promise.resolve({
          actor: user && {
            userId: user.id,
            username: user.username,
            role: user.role === Role.ADMIN ? 'admin' : 'user',
            isEmailVerified: user.isEmailVerified,
          },
        }),
      getSession: () => Promise.reject(new Error('the actor must not read the whole user')),
    } as unknown as ConstructorParameters<typeof RequestSession>[0];
    return {
      ip: '127.0.0.1',
      deviceId: 'device-7',
      session: new RequestSession(auth, new SessionCookie(false), user && 's-1', () => undefined),
    };
  };

  it('is empty for a visitor, but for the device id', async () => {
    expect(await actorOf(originWith(undefined))).toMatchObject({
      userId: '',
      role: '',
      isEmailVerified: false,
      deviceId: 'device-7',
      username: '',
    });
  });

  it("is the session's user, with role and verification", async () => {
    const admin = {
      ...userMessage('boss@example.com', 'Boss'),
      role: Role.ADMIN,
      isEmailVerified: true,
    };
    expect(await actorOf(originWith(admin))).toMatchObject({
      userId: 'user-boss@example.com',
      role: 'admin',
      isEmailVerified: true,
      deviceId: 'device-7',
      username: 'boss',
    });
  });
});
