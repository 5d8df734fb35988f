import { AppError } from '@underdog/kit';
import {
  TournamentStatus,
  timestampDate,
  timestampFromDate,
  type Actor,
  type MessageInitShape,
  type TournamentSchema,
} from '@underdog/proto';
import {
  cookieFrom,
  jsonHeaders,
  startTestGateway,
  validPassword,
  type TestGateway,
  errorBody,
} from './support';

const stored: MessageInitShape<typeof TournamentSchema> = {
  id: 't-1',
  title: 'Friday Cup',
  status: TournamentStatus.UPCOMING,
  startAt: timestampFromDate(new Date('2030-01-01T12:00:00.000Z')),
  prize: '$5,000',
  participantCount: 2,
  roundTimeSeconds: 15,
};

const storedView = {
  id: 't-1',
  title: 'Friday Cup',
  description: null,
  status: 'upcoming',
  startAt: '2030-01-01T12:00:00.000Z',
  prize: '$5,000',
  participantCount: 2,
  roundTimeSeconds: 15,
};

/** Like the real services: a visitor is refused with their own reason, an unknown id is 404. */
const requireUser = (actor: Actor | undefined) => {
  if (!actor?.userId) {
    throw new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' });
  }
};
const findTournament = (id: string) => {
  if (id !== 't-1') {
    throw new AppError('NOT_FOUND', 'Tournament not found', { reason: 'TOURNAMENT_NOT_FOUND' });
  }
  return stored;
};

describe('tournaments and advertisements at the edge (stub services)', () => {
  let gateway: TestGateway;
  let actors: Actor[];
  let requests: Array<Record<string, unknown>>;

  beforeEach(async () => {
    actors = [];
    requests = [];
    const seen = (request: { actor?: Actor | undefined }) => {
      if (request.actor) actors.push(request.actor);
      requests.push(request as Record<string, unknown>);
      requireUser(request.actor);
    };
    gateway = await startTestGateway({
      tournament: {
        listTournaments: () => ({ tournaments: [stored] }),
        getTournament: ({ id }) => ({ tournament: findTournament(id) }),
        createTournament: (request) => {
          seen(request);
          return { tournament: { ...stored, title: request.title, startAt: request.startAt } };
        },
        updateTournament: (request) => {
          seen(request);
          return { tournament: { ...findTournament(request.id), title: request.title } };
        },
        deleteTournament: (request) => {
          seen(request);
          findTournament(request.id);
          return {};
        },
        saveOfflineChoices: (request) => {
          seen(request);
          return {
            choices: request.choices,
            tournament: { ...findTournament(request.tournamentId), participantCount: 3 },
          };
        },
        getOfflineChoices: (request) => {
          seen(request);
          return { choices: [{ roundNumber: 1, selectedImageId: '2' }] };
        },
        hasOfflineChoices: (request) => {
          if (!request.actor?.userId) return { hasChoices: false };
          seen(request);
          return { hasChoices: true };
        },
      },
      ads: {
        listAdvertisements: (request) => {
          requests.push({ displayPosition: request.displayPosition });
          if (request.displayPosition === undefined) requireUser(request.actor);
          return { advertisements: [] };
        },
        createAdvertisement: (request) => {
          seen(request);
          throw new AppError('FORBIDDEN', 'Admin access required', { reason: 'ADMIN_ONLY' });
        },
        deleteAdvertisement: (request) => {
          seen(request);
          return {};
        },
      },
    });
  });
  afterEach(() => gateway.stop());

  const send = async (method: string, path: string, body?: unknown, cookie = '') => {
    const response = await fetch(gateway.url(path), {
      method,
      headers: { ...jsonHeaders, ...(cookie ? { cookie } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const signedIn = async () => {
    const response = await fetch(gateway.url('/api/login'), {
      method: 'POST',
      headers: jsonHeaders,
      body: JSON.stringify({ email: 'ann@example.com', password: validPassword }),
    });
    return cookieFrom(response);
  };

  it('lists tournaments as the client sees them', async () => {
    expect(await send('GET', '/api/tournaments')).toEqual({ status: 200, body: [storedView] });
    expect(await send('GET', '/api/tournaments/t-1')).toEqual({ status: 200, body: storedView });
  });

  it('passes the signed-in user and the device id to the service, and answers 201 on create', async () => {
    const cookie = await signedIn();
    const created = await send(
      'POST',
      '/api/tournaments',
      { title: 'New Cup', startAt: '2031-02-03T04:05:00.000Z', description: null },
      cookie,
    );
    expect(created).toEqual({
      status: 201,
      body: { ...storedView, title: 'New Cup', startAt: '2031-02-03T04:05:00.000Z' },
    });
    expect(actors).toEqual([
      expect.objectContaining({
        userId: 'user-ann@example.com',
        role: 'user',
        isEmailVerified: false,
        deviceId: 'device-test-1',
        username: 'ann',
      }),
    ]);
    const [request] = requests;
    expect(request).not.toHaveProperty('description', expect.anything());
    expect(timestampDate(request?.startAt as never).toISOString()).toBe('2031-02-03T04:05:00.000Z');
  });

  it('answers a visitor 401 UNAUTHENTICATED whatever reason the service gives', async () => {
    const refused = {
      status: 401,
      body: errorBody('Not authenticated', 'UNAUTHENTICATED'),
    };
    expect(await send('POST', '/api/tournaments', { title: 'x', startAt: null })).toEqual(refused);
    expect(await send('DELETE', '/api/tournaments/t-1', {})).toEqual(refused);
    expect(await send('GET', '/api/tournaments/t-1/offline-choices')).toEqual(refused);
    expect(await send('GET', '/api/admin/advertisements')).toEqual(refused);
    // The services saw a visitor: no user, but the device id.
    expect(actors).toHaveLength(3);
    for (const actor of actors) {
      expect(actor).toMatchObject({ userId: '', role: '', deviceId: 'device-test-1' });
    }
  });

  it("passes the service's refusals on with their reason as code", async () => {
    const cookie = await signedIn();
    expect(
      await send('POST', '/api/admin/advertisements', { title: 'Ad', type: 'text' }, cookie),
    ).toEqual({ status: 403, body: errorBody('Admin access required', 'ADMIN_ONLY') });
    expect(await send('PUT', '/api/tournaments/nope', { title: 'x' }, cookie)).toEqual({
      status: 404,
      body: errorBody('Tournament not found', 'TOURNAMENT_NOT_FOUND'),
    });
  });

  it('refuses an ill-typed body before calling the service', async () => {
    const cookie = await signedIn();
    expect(await send('POST', '/api/tournaments', { title: ['x'] }, cookie)).toEqual({
      status: 400,
      body: errorBody('title must be a string', 'BAD_REQUEST'),
    });
    expect(requests).toEqual([]);
  });

  it('confirms deletions with a message', async () => {
    const cookie = await signedIn();
    expect(await send('DELETE', '/api/tournaments/t-1', {}, cookie)).toEqual({
      status: 200,
      body: { message: 'Tournament deleted successfully.' },
    });
    expect(await send('DELETE', '/api/admin/advertisements/ad-1', {}, cookie)).toEqual({
      status: 200,
      body: { message: 'Advertisement deleted successfully.' },
    });
  });

  it('saves offline choices (201) and reads them back', async () => {
    const cookie = await signedIn();
    const choices = [{ roundNumber: 1, selectedImageId: '2' }];
    expect(await send('POST', '/api/tournaments/t-1/offline-choices', { choices }, cookie)).toEqual(
      {
        status: 201,
        body: {
          message: 'Offline choices saved successfully.',
          choices,
          tournament: { ...storedView, participantCount: 3 },
        },
      },
    );
    expect(await send('GET', '/api/tournaments/t-1/offline-choices', undefined, cookie)).toEqual({
      status: 200,
      body: choices,
    });
    expect(
      await send('GET', '/api/tournaments/t-1/has-offline-choices', undefined, cookie),
    ).toEqual({ status: 200, body: { hasChoices: true } });
    expect(await send('GET', '/api/tournaments/t-1/has-offline-choices')).toEqual({
      status: 200,
      body: { hasChoices: false },
    });
  });

  it('asks for between-rounds ads when no position is given, and for every ad on the admin list', async () => {
    const cookie = await signedIn();
    await send('GET', '/api/advertisements');
    await send('GET', '/api/advertisements?position=after_game');
    await send('GET', '/api/admin/advertisements', undefined, cookie);
    expect(requests).toEqual([
      { displayPosition: 'between_rounds' },
      { displayPosition: 'after_game' },
      { displayPosition: undefined },
    ]);
  });

  describe('over GraphQL', () => {
    const graphql = async (query: string, variables = {}, cookie = '') => {
      const response = await fetch(gateway.url('/graphql'), {
        method: 'POST',
        headers: { ...jsonHeaders, ...(cookie ? { cookie } : {}) },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    it('shows tournaments as REST does', async () => {
      const fields = 'id title description status startAt prize participantCount roundTimeSeconds';
      expect((await graphql(`{ tournaments { ${fields} } }`)).body).toEqual({
        data: { tournaments: [storedView] },
      });
    });

    it('creates a tournament with the same input checks', async () => {
      const cookie = await signedIn();
      const mutation =
        'mutation ($input: TournamentInput!) { createTournament(input: $input) { title startAt } }';
      const created = await graphql(
        mutation,
        { input: { title: 'GQL Cup', startAt: '2031-02-03T04:05:00.000Z' } },
        cookie,
      );
      expect(created.body).toEqual({
        data: { createTournament: { title: 'GQL Cup', startAt: '2031-02-03T04:05:00.000Z' } },
      });
      const badStart = await graphql(
        mutation,
        { input: { title: 'GQL Cup', startAt: 'soon' } },
        cookie,
      );
      expect(badStart.status).toBe(400);
      expect(badStart.body).toMatchObject({
        errors: [
          {
            message: 'startAt must be an ISO 8601 date-time with a time zone',
            extensions: { code: 'BAD_REQUEST' },
          },
        ],
      });
    });

    it('refuses a visitor the admin list with UNAUTHENTICATED and 401', async () => {
      const answer = await graphql('{ adminAdvertisements { id } }');
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({
        errors: [{ message: 'Not authenticated', extensions: { code: 'UNAUTHENTICATED' } }],
      });
    });

    it('lists between-rounds ads by default', async () => {
      expect((await graphql('{ advertisements { id } }')).body).toEqual({
        data: { advertisements: [] },
      });
      expect(requests).toEqual([{ displayPosition: 'between_rounds' }]);
    });
  });
});
