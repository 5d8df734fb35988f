import type { DocumentStore } from '@underdog/documents';
import { ACCOUNT_SCOPE, FairPlayRepository } from '../src/adapters/fair-play-repository';

/**
 * What the fair-play report's store must do, on the memory store (standalone) and on MongoDB
 * (FerretDB in the integration tier) alike: idempotent rows, a tournament's rows plus its
 * participants' account rows (and no one else's), the rounds once each, and deletion.
 */
export function fairPlayRepositoryContract(
  name: string,
  open: () => Promise<{ store: DocumentStore; close: () => Promise<void> }>,
): void {
  describe(`FairPlayRepository on ${name}`, () => {
    let repository: FairPlayRepository;
    let close: () => Promise<void>;
    const t0 = new Date('2030-01-01T12:00:00.000Z');

    beforeEach(async () => {
      const opened = await open();
      repository = new FairPlayRepository(opened.store);
      await opened.store.init();
      close = opened.close;
    });
    afterEach(() => close());

    it('stores a row once per id, and a tournament reads its rows and its players’ account rows', async () => {
      const account = (userId: string) => ({
        userId,
        tournamentId: ACCOUNT_SCOPE,
        kind: 'registered' as const,
        at: t0,
        addressPrefix: `v4:${userId}`,
      });
      expect(await repository.record('s1', account('ann'))).toBe(true);
      expect(await repository.record('s1', account('ann'))).toBe(false); // redelivered
      await repository.record('s2', account('zed')); // never joined t-1
      await repository.record('s3', {
        userId: 'ann',
        tournamentId: 't-1',
        kind: 'joined',
        at: t0,
        deviceId: 'd-ann',
        userAgent: 'ua:1',
      });
      await repository.record('vote:v1', {
        userId: 'ann',
        tournamentId: 't-1',
        kind: 'voted',
        at: new Date(t0.getTime() + 1_234),
        roundNumber: 1,
        imageId: 'round-1-image-2',
        username: 'ann',
      });
      await repository.record('s4', { userId: 'bob', tournamentId: 't-2', kind: 'joined', at: t0 });
      const rows = await repository.signalsOf('t-1');
      expect(rows).toHaveLength(3);
      expect(rows.map((row) => row.kind).sort()).toEqual(['joined', 'registered', 'voted']);
      expect(rows.find((row) => row.kind === 'voted')).toMatchObject({
        at: new Date(t0.getTime() + 1_234),
        roundNumber: 1,
        imageId: 'round-1-image-2',
        username: 'ann',
      });
      expect(rows.find((row) => row.kind === 'registered')).toMatchObject({
        addressPrefix: 'v4:ann',
      });
      expect(await repository.signalsOf('t-unknown')).toEqual([]);
    });

    it('stores a batch in one write, and a batch delivered again adds no row twice', async () => {
      const batch = Array.from({ length: 120 }, (_, i) => ({
        id: `vote:v${i}`,
        signal: {
          userId: `u${i % 40}`,
          tournamentId: 't-1',
          kind: 'voted' as const,
          at: new Date(t0.getTime() + i),
          roundNumber: 1 + Math.floor(i / 40),
          imageId: `round-1-image-${i % 4}`,
          deviceId: i % 2 === 0 ? `d${i}` : undefined,
        },
      }));
      expect(await repository.recordAll(batch)).toBe(120);
      expect(await repository.recordAll(batch)).toBe(0); // redelivered whole
      // A later batch overlapping the first, with an id twice in it: only the new rows count.
      const overlapping = [batch[5]!, batch[119]!, { ...batch[0]!, id: 'vote:new' }];
      expect(await repository.recordAll([...overlapping, overlapping[2]!])).toBe(1);
      expect(await repository.recordAll([])).toBe(0);
      const rows = await repository.signalsOf('t-1');
      expect(rows).toHaveLength(121);
      expect(rows.filter((row) => row.deviceId !== undefined)).toHaveLength(61);
    });

    it('forgets old account signals: logins deleted, registrations kept without device and hashes', async () => {
      const day = 24 * 60 * 60_000;
      const old = new Date(t0.getTime() - 100 * day);
      const recent = new Date(t0.getTime() - day);
      const who = { deviceId: 'd', addressPrefix: 'v4:p', userAgent: 'ua:u' };
      const rows = [
        { id: 'r-old', userId: 'ann', kind: 'registered' as const, at: old, ...who },
        { id: 'l-old', userId: 'ann', kind: 'loggedIn' as const, at: old, ...who },
        { id: 'r-new', userId: 'bob', kind: 'registered' as const, at: recent, ...who },
        { id: 'l-new', userId: 'bob', kind: 'loggedIn' as const, at: recent, ...who },
      ];
      await repository.recordAll(
        rows.map(({ id, ...signal }) => ({
          id,
          signal: { ...signal, tournamentId: ACCOUNT_SCOPE },
        })),
      );
      // They joined t-1, so its report reads their account rows.
      await repository.record('j-ann', {
        userId: 'ann',
        tournamentId: 't-1',
        kind: 'joined',
        at: old,
        ...who,
      });
      await repository.record('j-bob', {
        userId: 'bob',
        tournamentId: 't-1',
        kind: 'joined',
        at: recent,
      });
      const cutoff = new Date(t0.getTime() - 90 * day);
      expect(await repository.forgetAccountSignalsBefore(cutoff)).toEqual({
        deleted: 1,
        stripped: 3,
      });
      expect(await repository.forgetAccountSignalsBefore(cutoff)).toEqual({
        deleted: 0,
        stripped: 0,
      });
      const kept = await repository.signalsOf('t-1');
      const account = kept.filter((row) => row.tournamentId === ACCOUNT_SCOPE);
      expect(account.map((row) => `${row.userId}:${row.kind}`).sort()).toEqual([
        'ann:registered',
        'bob:loggedIn',
        'bob:registered',
      ]);
      const annRegistered = account.find((row) => row.userId === 'ann')!;
      expect(annRegistered).toEqual({
        userId: 'ann',
        tournamentId: ACCOUNT_SCOPE,
        kind: 'registered',
        at: old,
      });
      expect(account.filter((row) => row.userId === 'bob').every((row) => row.addressPrefix)).toBe(
        true,
      );
      // Tournament rows are not the account sweep's: ann's old join is still there.
      expect(kept.filter((row) => row.kind === 'joined')).toHaveLength(2);
    });

    it('deletes the old rows of tournaments no longer known, and no other rows', async () => {
      const day = 24 * 60 * 60_000;
      const old = new Date(t0.getTime() - 100 * day);
      const cutoff = new Date(t0.getTime() - 90 * day);
      await repository.record('a', {
        userId: 'ann',
        tournamentId: 't-gone',
        kind: 'joined',
        at: old,
      });
      await repository.record('b', {
        userId: 'bob',
        tournamentId: 't-gone',
        kind: 'joined',
        at: t0,
      });
      await repository.record('c', {
        userId: 'ann',
        tournamentId: 't-kept',
        kind: 'joined',
        at: old,
      });
      await repository.record('d', {
        userId: 'ann',
        tournamentId: ACCOUNT_SCOPE,
        kind: 'registered',
        at: old,
      });
      expect(await repository.deleteUnknownTournamentsBefore(['t-kept'], cutoff)).toBe(1);
      expect((await repository.signalsOf('t-gone')).map((row) => row.userId)).toEqual(['bob']);
      expect(await repository.signalsOf('t-kept')).toHaveLength(2); // its join and ann's account row
    });

    it('keeps a round’s images once, and deletes a tournament’s rows', async () => {
      await repository.roundStarted({ tournamentId: 't-1', roundNumber: 1, imageIds: ['a', 'b'] });
      await repository.roundStarted({ tournamentId: 't-1', roundNumber: 1, imageIds: ['x'] });
      await repository.roundStarted({ tournamentId: 't-1', roundNumber: 2, imageIds: ['c'] });
      await repository.record('s1', { userId: 'ann', tournamentId: 't-1', kind: 'joined', at: t0 });
      const rounds = await repository.roundsOf('t-1');
      expect(rounds.sort((a, b) => a.roundNumber - b.roundNumber)).toEqual([
        { tournamentId: 't-1', roundNumber: 1, imageIds: ['a', 'b'] },
        { tournamentId: 't-1', roundNumber: 2, imageIds: ['c'] },
      ]);
      await repository.deleteForTournament('t-1');
      expect(await repository.roundsOf('t-1')).toEqual([]);
      expect(await repository.signalsOf('t-1')).toEqual([]);
    });
  });
}
