import { FairPlayRepository } from '../src/adapters/fair-play-repository';
import { FairPlayRetention } from '../src/application/fair-play-retention';
import { tournamentConfig } from '../src/config';
import { HOUR, actors, inFuture, logger, startHarness, timestampAt, type Harness } from './support';

const DAY = 24 * HOUR;

/*
 * Issue 28 (retention): fair-play signals are kept FAIR_PLAY_RETENTION_DAYS after their
 * tournament finished, then deleted (with the rounds and the kept final report); login rows that
 * many days after the login; registrations keep only who and when.
 */
describe('the fair-play retention sweep', () => {
  let h: Harness;
  let repository: FairPlayRepository;
  let retention: FairPlayRetention;
  const forgotten: string[] = [];

  beforeEach(async () => {
    h = await startHarness();
    repository = new FairPlayRepository(h.infrastructure.documents);
    forgotten.length = 0;
    retention = new FairPlayRetention({
      repository,
      tournaments: h.module.tournaments,
      clock: h.clock,
      retentionDays: 30,
      logger,
      forgotten: (id) => forgotten.push(id),
    });
  });
  afterEach(() => h.stop());

  async function tournament(title: string, finish: boolean): Promise<string> {
    const { tournament: created } = await h.client.createTournament({
      actor: actors.admin(),
      title,
      startAt: timestampAt(inFuture(h.clock, HOUR)),
    });
    if (finish) {
      h.clock.advance(HOUR);
      await h.module.scheduler.startDueTournaments();
      h.clock.advance(HOUR);
      expect(await h.module.tournaments.markFinished(created!.id)).not.toBeNull();
    }
    return created!.id;
  }

  async function played(tournamentId: string, userId: string) {
    await repository.recordAll([
      {
        id: `${tournamentId}:${userId}:joined`,
        signal: {
          userId,
          tournamentId,
          kind: 'joined',
          at: h.clock.now(),
          deviceId: `d-${userId}`,
          addressPrefix: 'v4:p',
          userAgent: 'ua:u',
        },
      },
      {
        id: `${tournamentId}:${userId}:vote`,
        signal: {
          userId,
          tournamentId,
          kind: 'voted',
          at: h.clock.now(),
          roundNumber: 1,
          imageId: 'round-1-image-0',
        },
      },
    ]);
    await repository.roundStarted({ tournamentId, roundNumber: 1, imageIds: ['round-1-image-0'] });
  }

  it('deletes a tournament’s signals and rounds once it finished more than the retention ago', async () => {
    const finished = await tournament('Finished', true);
    await played(finished, 'ann');
    const upcoming = await tournament('Upcoming', false);
    await played(upcoming, 'bob');

    h.clock.advance(29 * DAY);
    expect((await retention.sweep()).tournaments).toEqual([]);
    expect(await repository.signalsOf(finished)).toHaveLength(2);

    h.clock.advance(2 * DAY); // 31 days after the finish
    expect((await retention.sweep()).tournaments).toEqual([finished]);
    expect(forgotten).toEqual([finished]);
    expect(await repository.signalsOf(finished)).toEqual([]);
    expect(await repository.roundsOf(finished)).toEqual([]);
    // Not finished: kept, however old its rows are.
    expect(await repository.signalsOf(upcoming)).toHaveLength(2);
    expect(await repository.roundsOf(upcoming)).toHaveLength(1);
    // Swept once per process.
    expect((await retention.sweep()).tournaments).toEqual([]);
  });

  it('forgets a deleted tournament’s rows and old logins, and strips old registrations', async () => {
    const deleted = await tournament('Deleted', false);
    await played(deleted, 'cat');
    await h.client.deleteTournament({ actor: actors.admin(), id: deleted });
    const account = (kind: 'registered' | 'loggedIn') => ({
      id: `${kind}:dan`,
      signal: {
        userId: 'dan',
        tournamentId: '*',
        kind,
        at: h.clock.now(),
        deviceId: 'd-dan',
        addressPrefix: 'v4:q',
      },
    });
    await repository.recordAll([account('registered'), account('loggedIn')]);
    const kept = await tournament('Kept', false);
    await played(kept, 'dan');

    h.clock.advance(31 * DAY);
    const sweep = await retention.sweep();
    expect(sweep).toMatchObject({ unknownTournamentRows: 2, logins: 1, registrationFields: 2 });
    expect(await repository.signalsOf(deleted)).toEqual([]);
    const dan = (await repository.signalsOf(kept)).filter((row) => row.tournamentId === '*');
    expect(dan).toEqual([
      { userId: 'dan', tournamentId: '*', kind: 'registered', at: expect.any(Date) },
    ]);
  });

  it('runs as a component of the service, every FAIR_PLAY_RETENTION_DAYS', async () => {
    expect(h.module.components.map((component) => component.name)).toContain('fair-play-retention');
    expect(tournamentConfig({}).fairPlayRetentionDays).toBe(90);
    expect(tournamentConfig({ FAIR_PLAY_RETENTION_DAYS: '7' }).fairPlayRetentionDays).toBe(7);
    expect(() => tournamentConfig({ FAIR_PLAY_RETENTION_DAYS: '0' })).toThrow(
      /FAIR_PLAY_RETENTION_DAYS/,
    );
  });
});
