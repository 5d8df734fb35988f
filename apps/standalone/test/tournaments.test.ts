import { TOTAL_ROUNDS } from '@underdog/rules';
import { createLogger } from '@underdog/kit';
import { createStandalone, type Standalone } from '../src';
import {
  browserAt,
  codeIn,
  errorBody,
  mailTo,
  uniqueEmail,
  type Answer,
  type Browser,
} from './support';

interface TournamentJson {
  id: string;
  title: string;
  description: string | null;
  status: 'upcoming' | 'live' | 'finished';
  startAt: string;
  prize: string | null;
  participantCount: number;
  roundTimeSeconds: number;
}

interface AdvertisementJson {
  id: string;
  title: string;
  type: string;
  content: string;
  displayPosition: string;
  isActive: boolean;
  duration: number;
  createdAt: string;
  updatedAt: string;
}

const admin = { email: 'admin@example.com', password: 'admin-password1' };
const password = 'correct-horse1';
const minutes = (count: number) => new Date(Date.now() + count * 60_000).toISOString();
/** Round N's pick: a full, valid set of offline choices. */
const allRounds = Array.from({ length: TOTAL_ROUNDS }, (_, index) => ({
  roundNumber: index + 1,
  selectedImageId: String(index % 4),
}));

const refusedVisitor = errorBody('Not authenticated', 'UNAUTHENTICATED');
const refusedUser = errorBody('Admin access required', 'ADMIN_ONLY');
const invalid = (message: string) => errorBody(message, 'VALIDATION_FAILED');

describe('tournaments, offline choices and ads end to end (standalone, real services in process)', () => {
  let standalone: Standalone;
  const url = (path: string) => `http://127.0.0.1:${standalone.http.port()}${path}`;
  let devices = 0;
  /** A browser on its own device (one device backs one participant per tournament). */
  const browser = () => browserAt(url, { deviceId: `device-tournaments-${(devices += 1)}` });

  let adminBrowser: Browser;
  let user: Browser;
  let visitor: Browser;

  beforeAll(async () => {
    standalone = await createStandalone({
      logger: createLogger({ service: 'underdog', level: 'silent' }),
      env: {
        ADMIN_EMAIL: admin.email,
        ADMIN_PASSWORD: admin.password,
        RATE_LIMIT_REGISTRATIONS_PER_IP: '1000',
      },
      port: 0,
      host: '127.0.0.1',
      nodeEnv: 'test',
    });
    await standalone.group.start();
    adminBrowser = browser();
    expect(await adminBrowser.post('/api/login', admin)).toMatchObject({
      status: 200,
      body: { role: 'admin' },
    });
    user = await registeredUser({ verified: true });
    visitor = browser();
  });
  afterAll(() => standalone.group.stop());

  async function registeredUser({ verified }: { verified: boolean }): Promise<Browser> {
    const client = browser();
    const email = uniqueEmail('player');
    expect(
      (await client.post('/api/register', { email, displayName: 'Player', password })).status,
    ).toBe(200);
    if (verified) {
      const code = codeIn(await mailTo(url, email));
      expect((await client.post('/api/verify-email', { code })).status).toBe(200);
    }
    return client;
  }

  async function createdTournament(fields: Record<string, unknown> = {}): Promise<TournamentJson> {
    const answer = await adminBrowser.post('/api/tournaments', {
      title: 'Friday Cup',
      description: 'The ultimate test',
      prize: '$5,000',
      startAt: minutes(60),
      ...fields,
    });
    expect(answer.status).toBe(201);
    return answer.body as TournamentJson;
  }

  const listed = async (client: Browser) =>
    (await client.get('/api/tournaments')).body as TournamentJson[];

  describe('tournament management', () => {
    it("shows a visitor the admin's new tournament", async () => {
      const startAt = minutes(90);
      const tournament = await createdTournament({ startAt, roundTimeSeconds: 20 });
      expect(tournament).toEqual({
        id: expect.any(String),
        title: 'Friday Cup',
        description: 'The ultimate test',
        status: 'upcoming',
        startAt,
        prize: '$5,000',
        participantCount: 0,
        roundTimeSeconds: 20,
      });
      expect(await listed(visitor)).toContainEqual(tournament);
      expect(await visitor.get(`/api/tournaments/${tournament.id}`)).toEqual({
        status: 200,
        body: tournament,
      });
    });

    it('defaults the round time and shows absent description and prize as null', async () => {
      const tournament = await createdTournament({ description: '', prize: null });
      expect(tournament).toMatchObject({ description: null, prize: null, roundTimeSeconds: 15 });
    });

    it('refuses management to users (403) and visitors (401)', async () => {
      const { id } = await createdTournament();
      const body = { title: 'Mine', startAt: minutes(60) };
      for (const [client, refusal] of [
        [user, { status: 403, body: refusedUser }],
        [visitor, { status: 401, body: refusedVisitor }],
      ] as const) {
        expect(await client.post('/api/tournaments', body)).toEqual(refusal);
        expect(await client.put(`/api/tournaments/${id}`, body)).toEqual(refusal);
        expect(await client.delete(`/api/tournaments/${id}`)).toEqual(refusal);
      }
      expect((await visitor.get(`/api/tournaments/${id}`)).body).toMatchObject({
        title: 'Friday Cup',
      });
    });

    it('answers with the validation messages of the spec', async () => {
      const create = (body: unknown) => adminBrowser.post('/api/tournaments', body);
      expect(await create({ title: '  ', startAt: minutes(60) })).toEqual({
        status: 400,
        body: invalid('Title is required'),
      });
      expect(await create({ title: 'Cup' })).toEqual({
        status: 400,
        body: invalid('Start time is required'),
      });
      expect(await create({ title: 'Cup', startAt: minutes(-1) })).toEqual({
        status: 400,
        body: invalid('Start time must be in the future'),
      });
      expect(await create({ title: 'Cup', startAt: 'next friday' })).toEqual({
        status: 400,
        body: errorBody('startAt must be an ISO 8601 date-time with a time zone', 'BAD_REQUEST'),
      });
    });

    it('edits a tournament, accepting its unchanged start and the original start time sent along', async () => {
      const tournament = await createdTournament();
      const edited = await adminBrowser.put(`/api/tournaments/${tournament.id}`, {
        title: 'Saturday Cup',
        description: null,
        prize: '$10,000',
        startAt: tournament.startAt,
        originalStartAt: tournament.startAt,
      });
      expect(edited).toEqual({
        status: 200,
        body: { ...tournament, title: 'Saturday Cup', description: null, prize: '$10,000' },
      });
      // The admin form edits at minute precision: the same minute is the stored start, kept.
      const sameMinute = new Date(tournament.startAt);
      sameMinute.setUTCSeconds(0, 0);
      const resubmitted = await adminBrowser.put(`/api/tournaments/${tournament.id}`, {
        title: 'Saturday Cup',
        startAt: sameMinute.toISOString(),
      });
      expect(resubmitted).toMatchObject({ status: 200, body: { startAt: tournament.startAt } });

      const movedToThePast = await adminBrowser.put(`/api/tournaments/${tournament.id}`, {
        title: 'Saturday Cup',
        startAt: minutes(-10),
        originalStartAt: tournament.startAt,
      });
      expect(movedToThePast).toEqual({
        status: 400,
        body: invalid('Start time must be in the future'),
      });
    });

    it('deletes a tournament: gone from the list, then 404', async () => {
      const { id } = await createdTournament();
      expect(await adminBrowser.delete(`/api/tournaments/${id}`)).toEqual({
        status: 200,
        body: { message: 'Tournament deleted successfully.' },
      });
      expect((await listed(visitor)).map((tournament) => tournament.id)).not.toContain(id);
      const notFound = {
        status: 404,
        body: errorBody('Tournament not found', 'TOURNAMENT_NOT_FOUND'),
      };
      expect(await visitor.get(`/api/tournaments/${id}`)).toEqual(notFound);
      expect(await adminBrowser.delete(`/api/tournaments/${id}`)).toEqual(notFound);
      expect(
        await adminBrowser.put(`/api/tournaments/${id}`, { title: 'x', startAt: minutes(60) }),
      ).toEqual(notFound);
    });

    it('works over GraphQL too', async () => {
      const created = await adminBrowser.graphql(
        'mutation ($input: TournamentInput!) { createTournament(input: $input) { id title status } }',
        { input: { title: 'GraphQL Cup', startAt: minutes(60) } },
      );
      const { id } = (created.body as { data: { createTournament: { id: string } } }).data
        .createTournament;
      expect(created.body).toEqual({
        data: { createTournament: { id, title: 'GraphQL Cup', status: 'upcoming' } },
      });
      expect(
        (await visitor.graphql('query ($id: ID!) { tournament(id: $id) { title } }', { id })).body,
      ).toEqual({ data: { tournament: { title: 'GraphQL Cup' } } });
      const refused = await user.graphql('mutation ($id: ID!) { deleteTournament(id: $id) }', {
        id,
      });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ errors: [{ extensions: { code: 'ADMIN_ONLY' } }] });
    });
  });

  describe('offline choices', () => {
    const save = (client: Browser, id: string, choices: unknown = allRounds): Promise<Answer> =>
      client.post(`/api/tournaments/${id}/offline-choices`, { choices });

    it('saves a full set of choices once for a verified user, who then counts as a participant', async () => {
      const { id } = await createdTournament();
      const player = await registeredUser({ verified: true });
      expect(await player.get(`/api/tournaments/${id}/has-offline-choices`)).toEqual({
        status: 200,
        body: { hasChoices: false },
      });

      const saved = await save(player, id);
      expect(saved).toEqual({
        status: 201,
        body: {
          message: 'Offline choices saved successfully.',
          choices: allRounds,
          tournament: expect.objectContaining({ id, participantCount: 1 }),
        },
      });
      expect(await player.get(`/api/tournaments/${id}/has-offline-choices`)).toEqual({
        status: 200,
        body: { hasChoices: true },
      });
      expect(await player.get(`/api/tournaments/${id}/offline-choices`)).toEqual({
        status: 200,
        body: allRounds,
      });
      expect((await listed(visitor)).find((tournament) => tournament.id === id)).toMatchObject({
        participantCount: 1,
      });

      expect(await save(player, id)).toEqual({
        status: 409,
        body: errorBody(expect.any(String), 'ALREADY_REGISTERED'),
      });
    });

    it('answers has-offline-choices false for a visitor, and an empty list for a user without', async () => {
      const { id } = await createdTournament();
      expect(await visitor.get(`/api/tournaments/${id}/has-offline-choices`)).toEqual({
        status: 200,
        body: { hasChoices: false },
      });
      expect(await user.get(`/api/tournaments/${id}/offline-choices`)).toEqual({
        status: 200,
        body: [],
      });
      expect(await visitor.get(`/api/tournaments/${id}/offline-choices`)).toEqual({
        status: 401,
        body: refusedVisitor,
      });
    });

    it('refuses incomplete and out-of-range choices with 400', async () => {
      const { id } = await createdTournament();
      const player = await registeredUser({ verified: true });
      expect(await save(player, id, allRounds.slice(1))).toEqual({
        status: 400,
        body: invalid(`Offline choices must cover all ${TOTAL_ROUNDS} rounds`),
      });
      expect(
        await save(player, id, [
          ...allRounds.slice(1),
          { roundNumber: TOTAL_ROUNDS + 1, selectedImageId: '0' },
        ]),
      ).toEqual({
        status: 400,
        body: invalid(`Round numbers must be 1 to ${TOTAL_ROUNDS}, each once`),
      });
      expect(
        await save(player, id, [{ roundNumber: 1, selectedImageId: '4' }, ...allRounds.slice(1)]),
      ).toEqual({ status: 400, body: invalid('Each choice must be an option from "0" to "3"') });
      expect(await save(player, id, 'all of them')).toEqual({
        status: 400,
        body: errorBody('choices must be an array', 'BAD_REQUEST'),
      });
      expect(await player.get(`/api/tournaments/${id}/has-offline-choices`)).toMatchObject({
        body: { hasChoices: false },
      });
    });

    it('refuses unverified users (403) and visitors (401)', async () => {
      const { id } = await createdTournament();
      const unverified = await registeredUser({ verified: false });
      expect(await save(unverified, id)).toEqual({
        status: 403,
        body: errorBody(expect.any(String), 'EMAIL_NOT_VERIFIED'),
      });
      expect(await save(visitor, id)).toEqual({ status: 401, body: refusedVisitor });
    });

    it('refuses once the window has closed, 5 minutes before the start', async () => {
      const { id } = await createdTournament({ startAt: minutes(4) });
      expect(await save(user, id)).toEqual({
        status: 409,
        body: errorBody(expect.any(String), 'OFFLINE_WINDOW_CLOSED'),
      });
    });

    it('answers 404 for an unknown tournament', async () => {
      const notFound = {
        status: 404,
        body: errorBody('Tournament not found', 'TOURNAMENT_NOT_FOUND'),
      };
      expect(await user.get('/api/tournaments/nope/has-offline-choices')).toEqual(notFound);
      expect(await save(user, 'nope')).toEqual(notFound);
    });
  });

  describe('advertisements', () => {
    const newAd = {
      title: 'Brand new',
      content: 'Buy now',
      type: 'text',
      displayPosition: 'between_rounds',
      duration: 8,
    };
    async function createdAd(fields: Record<string, unknown> = {}): Promise<AdvertisementJson> {
      const answer = await adminBrowser.post('/api/admin/advertisements', { ...newAd, ...fields });
      expect(answer.status).toBe(201);
      return answer.body as AdvertisementJson;
    }
    const publicIds = async (position?: string) => {
      const query = position === undefined ? '' : `?position=${position}`;
      const answer = await visitor.get(`/api/advertisements${query}`);
      expect(answer.status).toBe(200);
      return (answer.body as AdvertisementJson[]).map((ad) => ad.id);
    };

    it('creates an ad with defaults and shows it in the admin list', async () => {
      const ad = await createdAd({ displayPosition: undefined, duration: undefined });
      expect(ad).toEqual({
        id: expect.any(String),
        title: 'Brand new',
        type: 'text',
        content: 'Buy now',
        displayPosition: 'between_rounds',
        isActive: true,
        duration: 5,
        createdAt: expect.any(String),
        updatedAt: ad.createdAt,
      });
      const all = await adminBrowser.get('/api/admin/advertisements');
      expect(all.status).toBe(200);
      expect(all.body).toContainEqual(ad);
    });

    it('answers with the validation messages', async () => {
      const create = (fields: Record<string, unknown>) =>
        adminBrowser.post('/api/admin/advertisements', { ...newAd, ...fields });
      expect(await create({ title: '' })).toEqual({
        status: 400,
        body: invalid('Title is required'),
      });
      expect(await create({ content: undefined })).toEqual({
        status: 400,
        body: invalid('Content is required'),
      });
      expect(await create({ type: 'banner' })).toEqual({
        status: 400,
        body: invalid('Type must be one of text, image, video, html'),
      });
      expect(await create({ displayPosition: 'sidebar' })).toEqual({
        status: 400,
        body: invalid('displayPosition must be one of between_rounds, before_game, after_game'),
      });
      for (const duration of [0, 61]) {
        expect(await create({ duration })).toEqual({
          status: 400,
          body: invalid('Duration must be between 1 and 60 seconds'),
        });
      }
      expect(await create({ duration: 'ten' })).toEqual({
        status: 400,
        body: errorBody('duration must be a number', 'BAD_REQUEST'),
      });
    });

    it('lists publicly only the active ads of the position asked for', async () => {
      const between = await createdAd();
      const after = await createdAd({ displayPosition: 'after_game' });
      const inactive = await createdAd({ isActive: false });

      const betweenRounds = await publicIds('between_rounds');
      expect(betweenRounds).toContain(between.id);
      expect(betweenRounds).not.toContain(after.id);
      expect(betweenRounds).not.toContain(inactive.id);
      expect(await publicIds()).toEqual(betweenRounds);
      expect(await publicIds('after_game')).toContain(after.id);
      expect(await visitor.get('/api/advertisements?position=sidebar')).toEqual({
        status: 400,
        body: invalid('displayPosition must be one of between_rounds, before_game, after_game'),
      });
    });

    it('hides and shows an ad by toggling isActive', async () => {
      const ad = await createdAd();
      const hidden = await adminBrowser.put(`/api/admin/advertisements/${ad.id}`, {
        isActive: false,
      });
      expect(hidden).toMatchObject({
        status: 200,
        body: { id: ad.id, isActive: false, title: ad.title },
      });
      expect(await publicIds()).not.toContain(ad.id);

      const shown = await adminBrowser.put(`/api/admin/advertisements/${ad.id}`, {
        ...newAd,
        title: 'Renamed',
        isActive: true,
      });
      expect(shown).toMatchObject({ status: 200, body: { title: 'Renamed', isActive: true } });
      expect(await publicIds()).toContain(ad.id);
      expect(await adminBrowser.put(`/api/admin/advertisements/${ad.id}`, { title: ' ' })).toEqual({
        status: 400,
        body: invalid('Title cannot be empty'),
      });
    });

    it('deletes an ad: gone from both lists, then 404', async () => {
      const ad = await createdAd();
      expect(await adminBrowser.delete(`/api/admin/advertisements/${ad.id}`)).toEqual({
        status: 200,
        body: { message: 'Advertisement deleted successfully.' },
      });
      expect(await publicIds()).not.toContain(ad.id);
      const all = (await adminBrowser.get('/api/admin/advertisements')).body as AdvertisementJson[];
      expect(all.map((each) => each.id)).not.toContain(ad.id);
      const notFound = {
        status: 404,
        body: errorBody('Advertisement not found', 'AD_NOT_FOUND'),
      };
      expect(await adminBrowser.delete(`/api/admin/advertisements/${ad.id}`)).toEqual(notFound);
      expect(
        await adminBrowser.put(`/api/admin/advertisements/${ad.id}`, { isActive: true }),
      ).toEqual(notFound);
    });

    it('refuses management to users (403) and visitors (401)', async () => {
      const ad = await createdAd();
      for (const [client, refusal] of [
        [user, { status: 403, body: refusedUser }],
        [visitor, { status: 401, body: refusedVisitor }],
      ] as const) {
        expect(await client.get('/api/admin/advertisements')).toEqual(refusal);
        expect(await client.post('/api/admin/advertisements', newAd)).toEqual(refusal);
        expect(await client.put(`/api/admin/advertisements/${ad.id}`, { isActive: false })).toEqual(
          refusal,
        );
        expect(await client.delete(`/api/admin/advertisements/${ad.id}`)).toEqual(refusal);
      }
      expect(await publicIds()).toContain(ad.id);
    });

    it('works over GraphQL too', async () => {
      const created = await adminBrowser.graphql(
        'mutation ($input: CreateAdvertisementInput!) { createAdvertisement(input: $input) { id displayPosition duration } }',
        {
          input: {
            title: 'GQL ad',
            type: 'image',
            content: 'https://example.com/a.png',
            displayPosition: 'before_game',
          },
        },
      );
      expect(created.body).toEqual({
        data: {
          createAdvertisement: {
            id: expect.any(String),
            displayPosition: 'before_game',
            duration: 5,
          },
        },
      });
      const listed = await visitor.graphql(
        '{ advertisements(position: before_game) { title type } }',
      );
      expect(listed.body).toMatchObject({
        data: { advertisements: expect.arrayContaining([{ title: 'GQL ad', type: 'image' }]) },
      });
      const refused = await visitor.graphql('{ adminAdvertisements { id } }');
      expect(refused.status).toBe(401);
    });
  });
});
