import { TOTAL_ROUNDS } from '@underdog/rules';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testInfra } from '@underdog/harness';
import { waitFor } from '@underdog/test-support';
import { startStack, type Stack } from '../stack/stack';
import {
  adminClient,
  apiClient,
  testAdmin,
  uniqueEmail,
  verifiedUser,
  type ApiClient,
} from './support';

interface TournamentJson {
  id: string;
  title: string;
  status: string;
  startAt: string;
  participantCount: number;
}

const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
const allRounds = (option = '1') =>
  Array.from({ length: TOTAL_ROUNDS }, (_, i) => ({ roundNumber: i + 1, selectedImageId: option }));

/**
 * Tournaments, offline pre-registration and advertisements on the distributed stack: the gateway
 * and the services as separate processes on real Kafka, Redis and the MongoDB-wire server.
 */
describe('tournaments, offline choices and ads on the distributed stack', () => {
  let stack: Stack;
  let admin: ApiClient;
  let player: ApiClient;
  let visitor: ApiClient;

  beforeAll(async () => {
    stack = await startStack({
      infra: testInfra(),
      logDir: mkdtempSync(join(tmpdir(), 'underdog-tournaments-')),
      env: { ADMIN_EMAIL: testAdmin.email, ADMIN_PASSWORD: testAdmin.password },
    });
    await stack.waitUntilReady(120_000);
    admin = await adminClient(stack.gatewayUrl);
    player = await verifiedUser(stack.gatewayUrl, 'player');
    visitor = apiClient(stack.gatewayUrl);
  }, 180_000);

  afterAll(() => stack?.stop());

  async function createTournament(fields: Record<string, unknown>) {
    const created = await admin.call('POST', '/api/tournaments', fields);
    expect(created.status).toBe(201);
    return created.body as TournamentJson;
  }

  it('lets an admin create a tournament that a visitor then sees', async () => {
    const tournament = await createTournament({
      title: 'Sunday Underdog',
      description: 'Pick the least popular image',
      prize: '$5,000',
      startAt: inMinutes(60),
    });
    const list = await visitor.call('GET', '/api/tournaments');
    expect(list.status).toBe(200);
    expect(list.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: tournament.id,
          title: 'Sunday Underdog',
          status: 'upcoming',
          prize: '$5,000',
          participantCount: 0,
        }),
      ]),
    );
  });

  it('refuses tournament management to a user with 403 and to a visitor with 401', async () => {
    const tournament = await createTournament({ title: 'Guarded', startAt: inMinutes(60) });
    const body = { title: 'Hijacked', startAt: inMinutes(90) };
    for (const [client, status] of [
      [player, 403],
      [visitor, 401],
    ] as const) {
      expect((await client.call('POST', '/api/tournaments', body)).status).toBe(status);
      expect((await client.call('PUT', `/api/tournaments/${tournament.id}`, body)).status).toBe(
        status,
      );
      expect((await client.call('DELETE', `/api/tournaments/${tournament.id}`)).status).toBe(
        status,
      );
    }
  });

  it("answers with the spec's validation messages and accepts an unchanged start on edit", async () => {
    const noTitle = await admin.call('POST', '/api/tournaments', { startAt: inMinutes(60) });
    expect(noTitle).toMatchObject({ status: 400, body: { message: 'Title is required' } });
    const noStart = await admin.call('POST', '/api/tournaments', { title: 'No start' });
    expect(noStart).toMatchObject({ status: 400, body: { message: 'Start time is required' } });
    const past = await admin.call('POST', '/api/tournaments', {
      title: 'Yesterday',
      startAt: inMinutes(-60),
    });
    expect(past).toMatchObject({
      status: 400,
      body: { message: 'Start time must be in the future' },
    });

    const soon = await createTournament({ title: 'Starts soon', startAt: inMinutes(60) });
    const renamed = await admin.call('PUT', `/api/tournaments/${soon.id}`, {
      title: 'Renamed',
      startAt: soon.startAt,
      originalStartAt: soon.startAt,
    });
    expect(renamed).toMatchObject({ status: 200, body: { title: 'Renamed' } });
  });

  it('neither deletes nor moves a live tournament', async () => {
    const tournament = await createTournament({
      title: 'Goes live',
      startAt: new Date(Date.now() + 2_000).toISOString(),
    });
    await waitFor(
      async () => {
        const list = (await visitor.call('GET', '/api/tournaments')).body as TournamentJson[];
        return list.find((t) => t.id === tournament.id)?.status === 'live';
      },
      { message: 'the tournament live', timeoutMs: 15_000, intervalMs: 200 },
    );
    expect((await admin.call('DELETE', `/api/tournaments/${tournament.id}`)).status).toBe(409);
    const moved = await admin.call('PUT', `/api/tournaments/${tournament.id}`, {
      title: 'Goes live',
      startAt: inMinutes(30),
    });
    expect(moved.status).toBe(409);
  });

  describe('offline choices', () => {
    it('saves a full set of choices once for a verified user, counts the participant, and refuses a second save', async () => {
      const tournament = await createTournament({ title: 'Offline cup', startAt: inMinutes(30) });
      const path = `/api/tournaments/${tournament.id}`;
      expect((await player.call('GET', `${path}/has-offline-choices`)).body).toEqual({
        hasChoices: false,
      });

      const saved = await player.call('POST', `${path}/offline-choices`, { choices: allRounds() });
      expect(saved.status).toBe(201);
      expect((await player.call('GET', `${path}/has-offline-choices`)).body).toEqual({
        hasChoices: true,
      });
      const choices = (await player.call('GET', `${path}/offline-choices`)).body as unknown[];
      expect(choices).toHaveLength(TOTAL_ROUNDS);
      const list = (await visitor.call('GET', '/api/tournaments')).body as TournamentJson[];
      expect(list.find((t) => t.id === tournament.id)?.participantCount).toBe(1);

      const again = await player.call('POST', `${path}/offline-choices`, { choices: allRounds() });
      expect(again.status).toBe(409);
    });

    it('refuses incomplete or out-of-range choices with 400 and an unverified user with 403', async () => {
      const tournament = await createTournament({ title: 'Strict cup', startAt: inMinutes(30) });
      const path = `/api/tournaments/${tournament.id}/offline-choices`;
      const someone = await verifiedUser(stack.gatewayUrl, 'strict');
      const incomplete = await someone.call('POST', path, {
        choices: allRounds().slice(0, TOTAL_ROUNDS - 1),
      });
      expect(incomplete.status).toBe(400);
      const outOfRange = await someone.call('POST', path, { choices: allRounds('4') });
      expect(outOfRange.status).toBe(400);

      const unverified = apiClient(stack.gatewayUrl);
      await unverified.call('POST', '/api/register', {
        email: uniqueEmail('unverified'),
        displayName: 'Unverified',
        password: 'password123',
      });
      expect((await unverified.call('POST', path, { choices: allRounds() })).status).toBe(403);
    });

    it('refuses saving at or after five minutes before the start, with a clear message', async () => {
      const tournament = await createTournament({ title: 'Closing soon', startAt: inMinutes(4) });
      const refused = await player.call(
        'POST',
        `/api/tournaments/${tournament.id}/offline-choices`,
        { choices: allRounds() },
      );
      expect(refused.status).toBe(409);
      expect((refused.body as { message: string }).message).toMatch(/5 minutes/);
    });
  });

  describe('advertisements', () => {
    it('validates, lists only active ads of the asked position, and hides an ad when deactivated', async () => {
      const invalid = await admin.call('POST', '/api/admin/advertisements', {
        title: 'Bad',
        content: 'x',
        type: 'banner',
      });
      expect(invalid).toMatchObject({
        status: 400,
        body: { message: 'Type must be one of text, image, video, html' },
      });
      const noTitle = await admin.call('POST', '/api/admin/advertisements', {
        content: 'x',
        type: 'text',
      });
      expect(noTitle).toMatchObject({ status: 400, body: { message: 'Title is required' } });
      const tooLong = await admin.call('POST', '/api/admin/advertisements', {
        title: 'Long',
        content: 'x',
        type: 'text',
        duration: 61,
      });
      expect(tooLong.status).toBe(400);

      const created = await admin.call('POST', '/api/admin/advertisements', {
        title: `Halftime ${Date.now()}`,
        content: 'Drink water',
        type: 'text',
        displayPosition: 'before_game',
      });
      expect(created).toMatchObject({ status: 201, body: { duration: 5, isActive: true } });
      const ad = created.body as { id: string };
      const publicList = async () =>
        (
          (await visitor.call('GET', '/api/advertisements?position=before_game')).body as {
            id: string;
          }[]
        ).map((a) => a.id);
      expect(await publicList()).toContain(ad.id);
      expect(
        (
          (await visitor.call('GET', '/api/advertisements?position=after_game')).body as {
            id: string;
          }[]
        ).map((a) => a.id),
      ).not.toContain(ad.id);

      await admin.call('PUT', `/api/admin/advertisements/${ad.id}`, { isActive: false });
      expect(await publicList()).not.toContain(ad.id);
      await admin.call('PUT', `/api/admin/advertisements/${ad.id}`, { isActive: true });
      expect(await publicList()).toContain(ad.id);

      expect((await player.call('GET', '/api/admin/advertisements')).status).toBe(403);
      expect((await visitor.call('GET', '/api/admin/advertisements')).status).toBe(401);
      expect((await admin.call('DELETE', `/api/admin/advertisements/${ad.id}`)).status).toBe(200);
      expect(await publicList()).not.toContain(ad.id);
    });
  });
});
