import { TournamentStatus, timestampDate, timestampMs } from '@underdog/proto';
import {
  HOUR,
  MINUTE,
  actors,
  failureOf,
  inFuture,
  startHarness,
  timestampAt,
  waitFor,
  type Harness,
} from './support';

describe('tournament management', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.stop());

  const newTournament = (fields: { title?: string; startAt?: Date; prize?: string } = {}) =>
    h.client.createTournament({
      actor: actors.admin(),
      title: fields.title ?? 'Friday night',
      description: 'Least popular wins',
      prize: fields.prize ?? '$5,000',
      startAt: timestampAt(fields.startAt ?? inFuture(h.clock, HOUR)),
    });

  describe('who may manage tournaments', () => {
    it('refuses visitors as not authenticated', async () => {
      const request = { title: 'T', startAt: timestampAt(inFuture(h.clock, HOUR)) };
      const expected = { code: 'UNAUTHENTICATED', reason: 'NO_SESSION' };
      expect(await failureOf(h.client.createTournament(request))).toMatchObject(expected);
      expect(
        await failureOf(h.client.createTournament({ ...request, actor: actors.visitor() })),
      ).toMatchObject({ ...expected, message: 'Not authenticated' });
    });

    it('refuses users who are not admins, for create, update and delete', async () => {
      const { tournament } = await newTournament();
      const forbidden = {
        code: 'FORBIDDEN',
        reason: 'ADMIN_ONLY',
        message: 'Admin access required',
      };
      const user = actors.user();
      const startAt = tournament!.startAt;
      expect(
        await failureOf(h.client.createTournament({ actor: user, title: 'Mine', startAt })),
      ).toEqual(forbidden);
      expect(
        await failureOf(
          h.client.updateTournament({ actor: user, id: tournament!.id, title: 'Mine', startAt }),
        ),
      ).toEqual(forbidden);
      expect(
        await failureOf(h.client.deleteTournament({ actor: user, id: tournament!.id })),
      ).toEqual(forbidden);
      expect((await h.client.listTournaments({})).tournaments.map((t) => t.title)).toEqual([
        'Friday night',
      ]);
    });

    it('refuses before looking at the input: a bad draft from a visitor or a user is still refused', async () => {
      const { tournament } = await newTournament();
      const bad = { title: '', roundTimeSeconds: 1 };
      expect(
        await failureOf(h.client.createTournament({ ...bad, actor: actors.visitor() })),
      ).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'NO_SESSION' });
      expect(
        await failureOf(h.client.createTournament({ ...bad, actor: actors.user() })),
      ).toMatchObject({ code: 'FORBIDDEN', reason: 'ADMIN_ONLY' });
      expect(
        await failureOf(
          h.client.updateTournament({ ...bad, actor: actors.user(), id: tournament!.id }),
        ),
      ).toMatchObject({ code: 'FORBIDDEN', reason: 'ADMIN_ONLY' });
      expect(
        await failureOf(h.client.createTournament({ ...bad, actor: actors.admin() })),
      ).toMatchObject({ code: 'BAD_REQUEST', reason: 'VALIDATION_FAILED' });
    });
  });

  describe('creating', () => {
    it('creates an upcoming tournament with trimmed texts and the default round time', async () => {
      const startAt = inFuture(h.clock, HOUR);
      const { tournament } = await h.client.createTournament({
        actor: actors.admin(),
        title: '  Friday night  ',
        description: '  ',
        prize: ' $5,000 ',
        startAt: timestampAt(startAt),
      });
      expect(tournament).toMatchObject({
        title: 'Friday night',
        prize: '$5,000',
        status: TournamentStatus.UPCOMING,
        participantCount: 0,
        roundTimeSeconds: 15,
      });
      expect(tournament!.description).toBeUndefined();
      expect(tournament!.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(timestampMs(tournament!.startAt!)).toBe(startAt.getTime());
      expect(await h.client.getTournament({ id: tournament!.id })).toMatchObject({ tournament });
    });

    it.each<[string, { title?: string; startInMs?: number | null; roundTime?: number }, string]>([
      ['an empty title', { title: '' }, 'Title is required'],
      ['a blank title', { title: '    ' }, 'Title is required'],
      [
        'a title of 121 characters',
        { title: 'x'.repeat(121) },
        'Title must be at most 120 characters',
      ],
      ['no start time', { startInMs: null }, 'Start time is required'],
      ['a start time of now', { startInMs: 0 }, 'Start time must be in the future'],
      ['a start time in the past', { startInMs: -MINUTE }, 'Start time must be in the future'],
      ['a round time of 4 s', { roundTime: 4 }, 'Round time must be between 5 and 120 seconds'],
      ['a round time of 121 s', { roundTime: 121 }, 'Round time must be between 5 and 120 seconds'],
    ])('refuses %s with its message', async (_case, { title, startInMs, roundTime }, message) => {
      const startAt = startInMs === undefined ? HOUR : startInMs;
      const request = {
        actor: actors.admin(),
        title: title ?? 'Friday night',
        ...(startAt === null ? {} : { startAt: timestampAt(inFuture(h.clock, startAt)) }),
        ...(roundTime === undefined ? {} : { roundTimeSeconds: roundTime }),
      };
      expect(await failureOf(h.client.createTournament(request))).toEqual({
        code: 'BAD_REQUEST',
        reason: 'VALIDATION_FAILED',
        message,
      });
      expect((await h.client.listTournaments({})).tournaments).toEqual([]);
    });

    it('accepts round times from 5 to 120 seconds and a title of 120 characters', async () => {
      for (const roundTimeSeconds of [5, 120]) {
        const { tournament } = await h.client.createTournament({
          actor: actors.admin(),
          title: 'x'.repeat(120),
          startAt: timestampAt(inFuture(h.clock, HOUR)),
          roundTimeSeconds,
        });
        expect(tournament!.roundTimeSeconds).toBe(roundTimeSeconds);
      }
    });
  });

  describe('editing', () => {
    it('changes the texts and moves the start of an upcoming tournament', async () => {
      const { tournament } = await newTournament();
      const later = inFuture(h.clock, 2 * HOUR);
      const { tournament: edited } = await h.client.updateTournament({
        actor: actors.admin(),
        id: tournament!.id,
        title: 'Saturday night',
        startAt: timestampAt(later),
        roundTimeSeconds: 30,
      });
      expect(edited).toMatchObject({ title: 'Saturday night', roundTimeSeconds: 30 });
      // A PUT replaces the texts: what is not sent any more is cleared.
      expect(edited!.description).toBeUndefined();
      expect(edited!.prize).toBeUndefined();
      expect(timestampMs(edited!.startAt!)).toBe(later.getTime());
      expect((await h.client.getTournament({ id: tournament!.id })).tournament).toEqual(edited);
    });

    it('keeps the round time when the edit does not send one', async () => {
      const { tournament } = await h.client.createTournament({
        actor: actors.admin(),
        title: 'Slow',
        startAt: timestampAt(inFuture(h.clock, HOUR)),
        roundTimeSeconds: 60,
      });
      const { tournament: edited } = await h.client.updateTournament({
        actor: actors.admin(),
        id: tournament!.id,
        title: 'Still slow',
        startAt: tournament!.startAt,
      });
      expect(edited!.roundTimeSeconds).toBe(60);
    });

    it('accepts an unchanged start time even once it has passed', async () => {
      const { tournament } = await newTournament({ startAt: inFuture(h.clock, MINUTE) });
      h.clock.advance(2 * MINUTE); // the scheduler has not run: still upcoming, start in the past
      const { tournament: edited } = await h.client.updateTournament({
        actor: actors.admin(),
        id: tournament!.id,
        title: 'Renamed',
        prize: '$1',
        startAt: tournament!.startAt,
      });
      expect(edited).toMatchObject({ title: 'Renamed', status: TournamentStatus.UPCOMING });
      expect(edited!.startAt).toEqual(tournament!.startAt);
    });

    it('treats a start sent back at minute precision as unchanged and keeps the stored one', async () => {
      const startAt = new Date(inFuture(h.clock, HOUR).getTime() + 42_123);
      const { tournament } = await newTournament({ startAt });
      h.clock.advance(2 * HOUR);
      const minute = new Date(Math.floor(startAt.getTime() / MINUTE) * MINUTE);
      const { tournament: edited } = await h.client.updateTournament({
        actor: actors.admin(),
        id: tournament!.id,
        title: 'Renamed',
        startAt: timestampAt(minute),
      });
      expect(timestampDate(edited!.startAt!)).toEqual(startAt);
    });

    it('refuses a changed start time in the past, and a missing title or start', async () => {
      const { tournament } = await newTournament();
      const id = tournament!.id;
      const admin = actors.admin();
      const past = timestampAt(new Date(h.clock.now().getTime() - MINUTE));
      const invalid = (message: string) => ({
        code: 'BAD_REQUEST',
        reason: 'VALIDATION_FAILED',
        message,
      });
      expect(
        await failureOf(h.client.updateTournament({ actor: admin, id, title: 'T', startAt: past })),
      ).toEqual(invalid('Start time must be in the future'));
      expect(
        await failureOf(
          h.client.updateTournament({ actor: admin, id, title: ' ', startAt: tournament!.startAt }),
        ),
      ).toEqual(invalid('Title is required'));
      expect(await failureOf(h.client.updateTournament({ actor: admin, id, title: 'T' }))).toEqual(
        invalid('Start time is required'),
      );
    });

    it('lets a live tournament change its texts but not its start or round time', async () => {
      const { tournament } = await newTournament({ startAt: inFuture(h.clock, MINUTE) });
      h.clock.advance(MINUTE);
      await h.module.scheduler.startDueTournaments();
      const id = tournament!.id;
      const admin = actors.admin();

      const { tournament: edited } = await h.client.updateTournament({
        actor: admin,
        id,
        title: 'Live and renamed',
        startAt: tournament!.startAt,
      });
      expect(edited).toMatchObject({ title: 'Live and renamed', status: TournamentStatus.LIVE });

      expect(
        await failureOf(
          h.client.updateTournament({
            actor: admin,
            id,
            title: 'Later',
            startAt: timestampAt(inFuture(h.clock, HOUR)),
          }),
        ),
      ).toEqual({
        code: 'CONFLICT',
        reason: 'TOURNAMENT_LIVE',
        message: 'The start time of a live tournament cannot be changed',
      });
      expect(
        await failureOf(
          h.client.updateTournament({
            actor: admin,
            id,
            title: 'Faster',
            startAt: tournament!.startAt,
            roundTimeSeconds: 5,
          }),
        ),
      ).toMatchObject({ code: 'CONFLICT', reason: 'TOURNAMENT_LIVE' });
    });

    it('refuses any change to a finished tournament', async () => {
      const { tournament } = await newTournament({ startAt: inFuture(h.clock, MINUTE) });
      h.clock.advance(MINUTE);
      await h.module.scheduler.startDueTournaments();
      await h.module.tournaments.markFinished(tournament!.id);
      const finished = {
        code: 'CONFLICT',
        reason: 'TOURNAMENT_FINISHED',
        message: 'A finished tournament cannot be changed',
      };
      expect(
        await failureOf(
          h.client.updateTournament({
            actor: actors.admin(),
            id: tournament!.id,
            title: 'Renamed',
            startAt: tournament!.startAt,
          }),
        ),
      ).toEqual(finished);
      expect(
        await failureOf(h.client.deleteTournament({ actor: actors.admin(), id: tournament!.id })),
      ).toEqual(finished);
      expect((await h.client.getTournament({ id: tournament!.id })).tournament).toMatchObject({
        title: 'Friday night',
        status: TournamentStatus.FINISHED,
      });
    });
  });

  describe('deleting', () => {
    it('deletes an upcoming tournament', async () => {
      const { tournament } = await newTournament();
      await h.client.deleteTournament({ actor: actors.admin(), id: tournament!.id });
      expect((await h.client.listTournaments({})).tournaments).toEqual([]);
      expect(await failureOf(h.client.getTournament({ id: tournament!.id }))).toEqual({
        code: 'NOT_FOUND',
        reason: 'TOURNAMENT_NOT_FOUND',
        message: 'Tournament not found',
      });
    });

    it('refuses to delete a live tournament', async () => {
      const { tournament } = await newTournament({ startAt: inFuture(h.clock, MINUTE) });
      h.clock.advance(MINUTE);
      await h.module.scheduler.startDueTournaments();
      expect(
        await failureOf(h.client.deleteTournament({ actor: actors.admin(), id: tournament!.id })),
      ).toEqual({
        code: 'CONFLICT',
        reason: 'TOURNAMENT_LIVE',
        message: 'A live tournament cannot be deleted',
      });
      expect((await h.client.getTournament({ id: tournament!.id })).tournament!.status).toBe(
        TournamentStatus.LIVE,
      );
    });
  });

  it('answers "Tournament not found" for an unknown id everywhere', async () => {
    const notFound = { code: 'NOT_FOUND', reason: 'TOURNAMENT_NOT_FOUND' };
    const admin = actors.admin();
    const startAt = timestampAt(inFuture(h.clock, HOUR));
    expect(await failureOf(h.client.getTournament({ id: 'nope' }))).toMatchObject(notFound);
    expect(
      await failureOf(h.client.updateTournament({ actor: admin, id: 'nope', title: 'T', startAt })),
    ).toMatchObject(notFound);
    expect(await failureOf(h.client.deleteTournament({ actor: admin, id: 'nope' }))).toMatchObject(
      notFound,
    );
  });

  it('lists live first, then upcoming soonest first, then finished most recent first', async () => {
    const at = (minutes: number) => inFuture(h.clock, minutes * MINUTE);
    const ids: Record<string, string> = {};
    for (const [title, minutes] of [
      ['finished early', 1],
      ['finished late', 2],
      ['live', 3],
      ['upcoming late', 90],
      ['upcoming soon', 30],
    ] as const) {
      ids[title] = (await newTournament({ title, startAt: at(minutes) })).tournament!.id;
    }
    h.clock.advance(3 * MINUTE);
    await h.module.scheduler.startDueTournaments();
    await h.module.tournaments.markFinished(ids['finished early']!);
    await h.module.tournaments.markFinished(ids['finished late']!);

    const { tournaments } = await h.client.listTournaments({});
    expect(tournaments.map((t) => t.title)).toEqual([
      'live',
      'upcoming soon',
      'upcoming late',
      'finished late',
      'finished early',
    ]);
  });

  it('answers the server time from its clock', async () => {
    const { serverTime } = await h.client.getServerTime({});
    expect(timestampDate(serverTime!)).toEqual(h.clock.now());
  });

  it('publishes created, updated and deleted on tournament.lifecycle, keyed by tournament id', async () => {
    const { tournament } = await newTournament();
    const id = tournament!.id;
    await h.client.updateTournament({
      actor: actors.admin(),
      id,
      title: 'Renamed',
      startAt: tournament!.startAt,
    });
    await h.client.deleteTournament({ actor: actors.admin(), id });

    await waitFor(() => h.events.length === 3, 'three lifecycle events');
    expect(h.events.map((e) => [e.key, e.type, e.event.tournamentId, e.event.kind.case])).toEqual([
      [id, 'underdog.events.v1.TournamentCreated', id, 'created'],
      [id, 'underdog.events.v1.TournamentUpdated', id, 'updated'],
      [id, 'underdog.events.v1.TournamentDeleted', id, 'deleted'],
    ]);
    const [created, updated] = h.events;
    expect(created!.event.kind.value).toMatchObject({ tournament: { title: 'Friday night' } });
    expect(updated!.event.kind.value).toMatchObject({ tournament: { title: 'Renamed' } });
    const eventIds = h.events.map((e) => e.id);
    for (const eventId of eventIds) expect(eventId).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(eventIds).size).toBe(3);
  });

  it('publishes nothing for a refused change', async () => {
    await failureOf(
      h.client.createTournament({ actor: actors.user(), title: 'T', startAt: undefined }),
    );
    await failureOf(h.client.createTournament({ actor: actors.admin(), title: '' }));
    // Nothing was written, so nothing is pending for the outbox either (an event is published
    // only after its write, and the write is awaited before the answer).
    expect(await h.module.outbox.sweep()).toBe(0);
    expect(h.events).toEqual([]);
  });
});
