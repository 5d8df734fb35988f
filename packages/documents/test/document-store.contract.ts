import { randomUUID } from 'node:crypto';
import {
  defineCollection,
  DocumentValidationError,
  DuplicateKeyError,
  insertOnce,
  Schema,
  type Collection,
  type CollectionDefinition,
  type IndexDefinition,
  type InferDocument,
  type DocumentStore,
} from '../src';

export interface DocumentStoreFixture {
  store: DocumentStore;
  /** Another client of the same database, as a second replica would hold. */
  connectAnother(): Promise<DocumentStore>;
  /** Closes every client the fixture opened. */
  cleanup(): Promise<void>;
}

const tournamentSchema = new Schema({
  title: { type: String, required: true, maxlength: 200 },
  slug: { type: String, required: true },
  status: { type: String, enum: ['upcoming', 'live', 'finished'] as const, required: true },
  startAt: { type: Date, required: true },
  players: { type: Number, required: true, min: 0 },
  tags: { type: [String], required: true },
  prize: new Schema({ amount: { type: Number, required: true }, currency: String }, { _id: false }),
  note: String,
  settings: Schema.Types.Mixed,
});

type Tournament = InferDocument<typeof tournamentSchema>;

const registrationSchema = new Schema({
  tournamentId: { type: String, required: true },
  userId: { type: String, required: true },
});

/** Values of every type under one field (Mixed), to compare equality as the server does. */
const itemSchema = new Schema({
  value: Schema.Types.Mixed,
  tags: { type: [String], required: true },
  count: Number,
});

type Item = InferDocument<typeof itemSchema>;

const item = (id: string, fields: Partial<Item>): Item => ({ id, tags: [], ...fields });

const JAN_1 = new Date('2030-01-01T10:00:00.000Z');
const hoursAfter = (date: Date, hours: number): Date =>
  new Date(date.getTime() + hours * 3_600_000);

let sequence = 0;
function tournament(overrides: Partial<Tournament> = {}): Tournament {
  sequence += 1;
  return {
    id: `t-${sequence}`,
    title: `Game night ${sequence}`,
    slug: `game-night-${sequence}`,
    status: 'upcoming',
    startAt: JAN_1,
    players: 0,
    tags: [],
    ...overrides,
  };
}

/** The ids of documents, in the order given: most assertions care about which and in what order. */
const ids = (documents: Array<{ id: string }>): string[] => documents.map(({ id }) => id);

async function rejection(operation: Promise<unknown>): Promise<unknown> {
  return operation.then(
    () => undefined,
    (reason: unknown) => reason,
  );
}

export function describeDocumentStoreContract(
  name: string,
  factory: () => Promise<DocumentStoreFixture>,
): void {
  describe(`DocumentStore contract: ${name}`, () => {
    let fixture: DocumentStoreFixture;
    let store: DocumentStore;
    let tournamentsDefinition: CollectionDefinition<Tournament>;
    let tournaments: Collection<Tournament>;

    /** A name no other test uses, so tests never see each other's documents. */
    const uniqueName = (base: string): string => `${base}_${randomUUID().slice(0, 8)}`;

    beforeEach(async () => {
      fixture = await factory();
      store = fixture.store;
      tournamentsDefinition = defineCollection({
        name: uniqueName('tournaments'),
        schema: tournamentSchema,
        indexes: [{ fields: { slug: 1 }, unique: true }, { fields: { status: 1, startAt: 1 } }],
      });
      tournaments = store.collection(tournamentsDefinition);
      await store.init();
    });

    afterEach(async () => {
      await fixture.cleanup();
    });

    describe('insert and read', () => {
      it('stores a document and reads it back by id, Dates as Dates', async () => {
        const stored = tournament({ prize: { amount: 50, currency: 'EUR' }, tags: ['final'] });
        await tournaments.insertOne(stored);
        const found = await tournaments.findById(stored.id);
        expect(found).toEqual(stored);
        expect(found?.startAt).toBeInstanceOf(Date);
      });

      it('answers null for an id that is not stored', async () => {
        expect(await tournaments.findById('missing')).toBeNull();
      });

      it('keeps nulls and empty objects and arrays as they were', async () => {
        const stored = { ...tournament({ note: null }), settings: {} };
        await tournaments.insertOne(stored);
        expect(await tournaments.findById(stored.id)).toEqual(stored);
      });

      it('inserts many documents', async () => {
        const batch = [tournament(), tournament(), tournament()];
        await tournaments.insertMany(batch);
        await tournaments.insertMany([]);
        expect(await tournaments.count({})).toBe(3);
      });

      it('refuses a second document with the same id', async () => {
        const first = tournament();
        await tournaments.insertOne(first);
        const error = await rejection(tournaments.insertOne({ ...first, slug: 'another' }));
        expect(error).toBeInstanceOf(DuplicateKeyError);
        expect(error).toMatchObject({
          code: 'DUPLICATE_KEY',
          collection: tournaments.name,
          index: '_id_',
        });
        expect(await tournaments.findById(first.id)).toEqual(first);
      });

      it('refuses a value a unique index already holds', async () => {
        await tournaments.insertOne(tournament({ slug: 'finals' }));
        const error = await rejection(tournaments.insertOne(tournament({ slug: 'finals' })));
        expect(error).toBeInstanceOf(DuplicateKeyError);
        expect(error).toMatchObject({ collection: tournaments.name, index: 'slug_1' });
        expect(await tournaments.count({ slug: 'finals' })).toBe(1);
      });

      it('inserts once: false for a taken id or unique value, other refusals thrown', async () => {
        const first = tournament({ slug: 'once' });
        expect(await insertOnce(tournaments, first)).toBe(true);
        expect(await insertOnce(tournaments, { ...first, title: 'again' })).toBe(false);
        expect(await insertOnce(tournaments, tournament({ slug: 'once' }))).toBe(false);
        expect(await tournaments.find({ slug: 'once' })).toEqual([first]);
        const invalid = tournament({ players: -1 });
        expect(await rejection(insertOnce(tournaments, invalid))).toBeInstanceOf(
          DocumentValidationError,
        );
      });

      it('enforces a compound unique index on the combination only', async () => {
        const registrations = store.collection(
          defineCollection({
            name: uniqueName('registrations'),
            schema: registrationSchema,
            indexes: [{ fields: { tournamentId: 1, userId: 1 }, unique: true }],
          }),
        );
        await store.init();
        await registrations.insertMany([
          { id: 'r1', tournamentId: 't1', userId: 'ann' },
          { id: 'r2', tournamentId: 't1', userId: 'bob' },
          { id: 'r3', tournamentId: 't2', userId: 'ann' },
        ]);
        const error = await rejection(
          registrations.insertOne({ id: 'r4', tournamentId: 't1', userId: 'ann' }),
        );
        expect(error).toMatchObject({ index: 'tournamentId_1_userId_1' });
        expect(await registrations.find({})).toHaveLength(3);
      });

      it('stops insertMany at the first duplicate, keeping the documents before it', async () => {
        const [a, b, c] = [tournament(), tournament(), tournament()];
        const error = await rejection(tournaments.insertMany([a, b, { ...a, slug: 'x' }, c]));
        expect(error).toBeInstanceOf(DuplicateKeyError);
        expect(ids(await tournaments.find({}, { sort: { id: 1 } }))).toEqual([a.id, b.id].sort());
      });

      it('inserts what it can of an unordered batch and reports the refused positions', async () => {
        const [a, b, c] = [tournament(), tournament(), tournament()];
        await tournaments.insertOne(b);
        const error = await rejection(
          tournaments.insertMany([a, b, { ...c, slug: a.slug }, c], { ordered: false }),
        );
        expect(error).toBeInstanceOf(DuplicateKeyError);
        expect(error).toMatchObject({ refused: [1, 2] });
        expect(ids(await tournaments.find({}, { sort: { id: 1 } }))).toEqual(
          [a.id, b.id, c.id].sort(),
        );
      });

      it('hands out copies: changing a returned or inserted document changes nothing stored', async () => {
        const stored = tournament({ tags: ['a'], prize: { amount: 1, currency: 'EUR' } });
        await tournaments.insertOne(stored);
        stored.tags.push('changed after insert');
        const found = await tournaments.findById(stored.id);
        if (!found) throw new Error('not found');
        found.title = 'changed';
        found.tags.push('changed after read');
        found.startAt.setFullYear(1999);
        const [listed] = await tournaments.find({ id: stored.id });
        if (!listed?.prize) throw new Error('not listed');
        listed.prize.amount = 999;
        expect(await tournaments.findById(stored.id)).toEqual({ ...stored, tags: ['a'] });
      });
    });

    describe('filters', () => {
      const ann = tournament({
        id: 'ann',
        slug: 'ann',
        players: 5,
        tags: ['final', 'night'],
        prize: { amount: 100, currency: 'EUR' },
        startAt: JAN_1,
      });
      const bob = tournament({
        id: 'bob',
        slug: 'bob',
        players: 10,
        status: 'live',
        tags: ['night'],
        prize: { amount: 20, currency: 'USD' },
        startAt: hoursAfter(JAN_1, 1),
        note: 'special',
      });
      const cyd = tournament({
        id: 'cyd',
        slug: 'cyd',
        players: 15,
        status: 'finished',
        startAt: hoursAfter(JAN_1, 2),
        note: null,
      });

      beforeEach(async () => {
        await tournaments.insertMany([ann, bob, cyd]);
      });

      const matching = async (
        filter: Parameters<Collection<Tournament>['find']>[0],
      ): Promise<string[]> => ids(await tournaments.find(filter, { sort: { id: 1 } }));

      it('matches everything with an empty filter', async () => {
        expect(await matching({})).toEqual(['ann', 'bob', 'cyd']);
      });

      it('matches equality on fields, ids, Dates and nested paths', async () => {
        expect(await matching({ status: 'live' })).toEqual(['bob']);
        expect(await matching({ id: 'cyd' })).toEqual(['cyd']);
        expect(await matching({ startAt: hoursAfter(JAN_1, 1) })).toEqual(['bob']);
        expect(await matching({ 'prize.currency': 'EUR' })).toEqual(['ann']);
        expect(await matching({ status: 'upcoming', players: 5 })).toEqual(['ann']);
        expect(await matching({ status: 'upcoming', players: 6 })).toEqual([]);
      });

      it('matches an array field by one of its elements', async () => {
        expect(await matching({ tags: 'night' })).toEqual(['ann', 'bob']);
        expect(await matching({ tags: 'final' })).toEqual(['ann']);
      });

      it('matches null against null and missing fields', async () => {
        expect(await matching({ note: null })).toEqual(['ann', 'cyd']);
      });

      it('supports $eq, $ne, $in and $nin', async () => {
        expect(await matching({ players: { $eq: 10 } })).toEqual(['bob']);
        expect(await matching({ status: { $ne: 'upcoming' } })).toEqual(['bob', 'cyd']);
        expect(await matching({ id: { $in: ['ann', 'cyd', 'dan'] } })).toEqual(['ann', 'cyd']);
        expect(await matching({ status: { $nin: ['live', 'finished'] } })).toEqual(['ann']);
        expect(await matching({ tags: { $in: ['final'] } })).toEqual(['ann']);
      });

      it('supports $lt, $lte, $gt and $gte on numbers and Dates', async () => {
        expect(await matching({ players: { $lt: 10 } })).toEqual(['ann']);
        expect(await matching({ players: { $lte: 10 } })).toEqual(['ann', 'bob']);
        expect(await matching({ players: { $gt: 10 } })).toEqual(['cyd']);
        expect(await matching({ players: { $gte: 10, $lt: 15 } })).toEqual(['bob']);
        expect(await matching({ startAt: { $lte: hoursAfter(JAN_1, 1) } })).toEqual(['ann', 'bob']);
        expect(await matching({ 'prize.amount': { $gt: 50 } })).toEqual(['ann']);
      });

      it('supports $exists', async () => {
        expect(await matching({ prize: { $exists: true } })).toEqual(['ann', 'bob']);
        expect(await matching({ prize: { $exists: false } })).toEqual(['cyd']);
        expect(await matching({ note: { $exists: true } })).toEqual(['bob', 'cyd']);
      });

      it('counts matching documents', async () => {
        expect(await tournaments.count({})).toBe(3);
        expect(await tournaments.count({ players: { $gte: 10 } })).toBe(2);
        expect(await tournaments.count({ status: 'upcoming', players: 99 })).toBe(0);
      });
    });

    describe('sort and limit', () => {
      beforeEach(async () => {
        await tournaments.insertMany([
          tournament({ id: 'a', status: 'live', players: 3, startAt: hoursAfter(JAN_1, 2) }),
          tournament({ id: 'b', status: 'upcoming', players: 1, startAt: hoursAfter(JAN_1, 3) }),
          tournament({ id: 'c', status: 'live', players: 2, startAt: hoursAfter(JAN_1, 1) }),
          tournament({ id: 'd', status: 'upcoming', players: 4, startAt: hoursAfter(JAN_1, 0) }),
        ]);
      });

      it('sorts ascending and descending, by fields, Dates and id', async () => {
        expect(ids(await tournaments.find({}, { sort: { players: 1 } }))).toEqual([
          'b',
          'c',
          'a',
          'd',
        ]);
        expect(ids(await tournaments.find({}, { sort: { startAt: -1 } }))).toEqual([
          'b',
          'a',
          'c',
          'd',
        ]);
        expect(ids(await tournaments.find({}, { sort: { id: -1 } }))).toEqual(['d', 'c', 'b', 'a']);
      });

      it('sorts by several keys in order', async () => {
        const sorted = await tournaments.find({}, { sort: { status: 1, players: -1 } });
        expect(ids(sorted)).toEqual(['a', 'c', 'd', 'b']);
      });

      it('limits after sorting', async () => {
        const sort = { players: 1 } as const;
        expect(ids(await tournaments.find({}, { sort, limit: 2 }))).toEqual(['b', 'c']);
        expect(ids(await tournaments.find({ status: 'upcoming' }, { sort, limit: 1 }))).toEqual([
          'b',
        ]);
        expect(await tournaments.find({ status: 'live' }, { limit: 0 })).toHaveLength(2);
      });

      it('finds the first document in sort order', async () => {
        const earliest = await tournaments.findOne({ status: 'live' }, { sort: { startAt: 1 } });
        expect(earliest?.id).toBe('c');
        expect(await tournaments.findOne({ status: 'finished' })).toBeNull();
      });
    });

    describe('updates', () => {
      it('applies $set, $inc, $unset and $push and returns the document after', async () => {
        const stored = tournament({ players: 2, note: 'x', tags: ['a'] });
        const other = tournament();
        await tournaments.insertMany([stored, other]);
        const updated = await tournaments.updateOne(
          { id: stored.id },
          {
            $set: { title: 'Renamed', startAt: hoursAfter(JAN_1, 5), 'prize.amount': 10 },
            $inc: { players: 3 },
            $unset: { note: true },
            $push: { tags: 'b' },
          },
        );
        const { note: _removed, ...rest } = stored;
        const expected = {
          ...rest,
          title: 'Renamed',
          startAt: hoursAfter(JAN_1, 5),
          prize: { amount: 10 },
          players: 5,
          tags: ['a', 'b'],
        };
        expect(updated).toEqual(expected);
        expect(updated?.startAt).toBeInstanceOf(Date);
        expect(await tournaments.findById(stored.id)).toEqual(expected);
        expect(await tournaments.findById(other.id)).toEqual(other);
      });

      it('creates a missing field with $inc', async () => {
        const stored = tournament();
        await tournaments.insertOne(stored);
        const updated = await tournaments.updateOne(
          { id: stored.id },
          { $inc: { 'prize.amount': 2 } },
        );
        expect(updated).toEqual({ ...stored, prize: { amount: 2 } });
      });

      it('keeps no reference to values given in an update', async () => {
        const stored = tournament();
        await tournaments.insertOne(stored);
        const prize = { amount: 5, currency: 'EUR' };
        await tournaments.updateOne({ id: stored.id }, { $set: { prize } });
        prize.amount = 6;
        expect((await tournaments.findById(stored.id))?.prize).toEqual({
          amount: 5,
          currency: 'EUR',
        });
      });

      it('answers null and changes nothing when no document matches', async () => {
        const stored = tournament();
        await tournaments.insertOne(stored);
        const updated = await tournaments.updateOne(
          { id: stored.id, status: 'live' },
          { $set: { title: 'never' } },
        );
        expect(updated).toBeNull();
        expect(await tournaments.findById(stored.id)).toEqual(stored);
      });

      it('updates the first matching document in sort order', async () => {
        await tournaments.insertMany([
          tournament({ id: 'late', startAt: hoursAfter(JAN_1, 2) }),
          tournament({ id: 'early', startAt: JAN_1 }),
        ]);
        const started = await tournaments.updateOne(
          { status: 'upcoming' },
          { $set: { status: 'live' } },
          { sort: { startAt: 1 } },
        );
        expect(started?.id).toBe('early');
        expect(await tournaments.count({ status: 'live' })).toBe(1);
      });

      it('refuses an update that takes a unique value, leaving the document as it was', async () => {
        const [first, second] = [tournament({ slug: 'one' }), tournament({ slug: 'two' })];
        await tournaments.insertMany([first, second]);
        const error = await rejection(
          tournaments.updateOne({ id: second.id }, { $set: { slug: 'one' } }),
        );
        expect(error).toBeInstanceOf(DuplicateKeyError);
        expect(error).toMatchObject({ index: 'slug_1' });
        expect(await tournaments.findById(second.id)).toEqual(second);
        await tournaments.insertOne(tournament({ slug: 'three' }));
      });

      it('updates every match with updateMany and counts them', async () => {
        await tournaments.insertMany([
          tournament({ id: 'a', players: 1 }),
          tournament({ id: 'b', players: 2 }),
          tournament({ id: 'c', players: 3, status: 'live' }),
        ]);
        expect(
          await tournaments.updateMany(
            { status: 'upcoming', id: { $in: ['a', 'b'] } },
            { $inc: { players: 10 } },
          ),
        ).toBe(2);
        expect(await tournaments.updateMany({ status: 'finished' }, { $inc: { players: 1 } })).toBe(
          0,
        );
        const players = (await tournaments.find({}, { sort: { id: 1 } })).map((t) => t.players);
        expect(players).toEqual([11, 12, 3]);
      });

      it('updates one match of several in the order asked for', async () => {
        await tournaments.insertMany([
          tournament({ id: 'a', players: 1 }),
          tournament({ id: 'b', players: 2 }),
        ]);
        const updated = await tournaments.updateOne(
          { status: 'upcoming' },
          { $inc: { players: 10 } },
          { sort: { players: -1 } },
        );
        expect(updated?.id).toBe('b');
        const players = (await tournaments.find({}, { sort: { id: 1 } })).map((t) => t.players);
        expect(players).toEqual([1, 12]);
      });
    });

    describe('schema', () => {
      const invalidPaths = async (operation: Promise<unknown>): Promise<readonly string[]> => {
        const error = await rejection(operation);
        expect(error).toBeInstanceOf(DocumentValidationError);
        expect(error).toMatchObject({ code: 'DOCUMENT_INVALID', collection: tournaments.name });
        return [...(error as DocumentValidationError).paths].sort();
      };

      it('refuses a document missing a required field', async () => {
        const { title: _title, ...untitled } = tournament({ id: 'untitled' });
        expect(await invalidPaths(tournaments.insertOne(untitled as Tournament))).toEqual([
          'title',
        ]);
        expect(await tournaments.findById('untitled')).toBeNull();
      });

      it('refuses a value outside its enum or bounds, and a field the schema lacks', async () => {
        const bad = {
          ...tournament({ id: 'bad', players: -1, title: 'x'.repeat(201) }),
          status: 'paused',
        } as unknown as Tournament;
        expect(await invalidPaths(tournaments.insertOne(bad))).toEqual([
          'players',
          'status',
          'title',
        ]);
        const coloured = { ...tournament({ id: 'coloured' }), colour: 'red' } as Tournament;
        expect(await invalidPaths(tournaments.insertOne(coloured))).toEqual(['colour']);
        expect(await tournaments.find({})).toEqual([]);
      });

      it('writes nothing of a batch holding one invalid document', async () => {
        const batch = [tournament(), { ...tournament(), players: -5 }, tournament()];
        expect(await invalidPaths(tournaments.insertMany(batch, { ordered: false }))).toEqual([
          'players',
        ]);
        expect(await tournaments.find({})).toEqual([]);
      });

      it('refuses an update that breaks the schema, leaving the document as it was', async () => {
        const stored = tournament();
        await tournaments.insertOne(stored);
        const paused = { status: 'paused' } as unknown as { status: 'live' };
        expect(
          await invalidPaths(tournaments.updateOne({ id: stored.id }, { $set: paused })),
        ).toEqual(['status']);
        expect(
          await invalidPaths(tournaments.updateOne({ id: stored.id }, { $unset: { title: true } })),
        ).toEqual(['title']);
        expect(
          await invalidPaths(tournaments.updateOne({ id: stored.id }, { $set: { players: -1 } })),
        ).toEqual(['players']);
        expect(await invalidPaths(tournaments.updateMany({}, { $set: paused }))).toEqual([
          'status',
        ]);
        expect(await tournaments.findById(stored.id)).toEqual(stored);
      });
    });

    describe('deletes', () => {
      beforeEach(async () => {
        await tournaments.insertMany([
          tournament({ id: 'a', status: 'finished' }),
          tournament({ id: 'b', status: 'finished' }),
          tournament({ id: 'c', status: 'live' }),
        ]);
      });

      it('deletes one matching document', async () => {
        expect(await tournaments.deleteOne({ status: 'finished' })).toBe(true);
        expect(await tournaments.count({ status: 'finished' })).toBe(1);
        expect(await tournaments.deleteOne({ id: 'missing' })).toBe(false);
      });

      it('deletes every matching document and counts them', async () => {
        expect(await tournaments.deleteMany({ status: 'finished' })).toBe(2);
        expect(await tournaments.deleteMany({ status: 'finished' })).toBe(0);
        expect(ids(await tournaments.find({}))).toEqual(['c']);
      });

      it('frees unique values and ids of deleted documents', async () => {
        const first = tournament({ slug: 'reused' });
        await tournaments.insertOne(first);
        await tournaments.deleteOne({ id: first.id });
        await tournaments.insertOne(first);
        expect(await tournaments.findById(first.id)).toEqual(first);
      });
    });

    describe('atomic conditional update', () => {
      it('lets exactly one of 20 concurrent callers start an upcoming tournament', async () => {
        const stored = tournament();
        await tournaments.insertOne(stored);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            tournaments.updateOne(
              { id: stored.id, status: 'upcoming' },
              { $set: { status: 'live', title: `started by ${i}` } },
            ),
          ),
        );
        const winners = results.filter((result) => result !== null);
        expect(winners).toHaveLength(1);
        expect(await tournaments.findById(stored.id)).toEqual(winners[0]);
      });

      it('lets exactly one of several replicas start an upcoming tournament', async () => {
        const stored = tournament();
        await tournaments.insertOne(stored);
        const replicas = [
          tournaments,
          ...(await Promise.all(
            [1, 2, 3].map(async () =>
              (await fixture.connectAnother()).collection(tournamentsDefinition),
            ),
          )),
        ];
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (replicas[i % replicas.length] ?? tournaments).updateOne(
              { id: stored.id, status: 'upcoming' },
              { $set: { status: 'live', title: `started by ${i}` } },
            ),
          ),
        );
        expect(results.filter((result) => result !== null)).toHaveLength(1);
      });

      it('loses no increment under concurrency', async () => {
        const stored = tournament({ players: 0 });
        await tournaments.insertOne(stored);
        await Promise.all(
          Array.from({ length: 50 }, () =>
            tournaments.updateOne({ id: stored.id }, { $inc: { players: 1 } }),
          ),
        );
        expect((await tournaments.findById(stored.id))?.players).toBe(50);
      });
    });

    // The memory adapter answers equality and $in on top-level fields from hash sets and
    // indexes (src/memory-query.ts): each shape it handles, against the server, on a field it
    // indexes and on one it scans.
    describe.each<[string, IndexDefinition[]]>([
      ['an indexed field', [{ fields: { value: 1 } }, { fields: { tags: 1, count: 1 } }]],
      ['a field without an index', []],
    ])('equality and $in on %s', (_name, indexes) => {
      let items: Collection<Item>;

      beforeEach(async () => {
        items = store.collection(
          defineCollection({ name: uniqueName('items'), schema: itemSchema, indexes }),
        );
        await store.init();
        await items.insertMany([
          item('a', { value: 1, tags: ['x', 'y'], count: 1 }),
          item('b', { value: '1', tags: ['y'], count: 2 }),
          item('c', { value: true, count: 3 }),
          item('d', { value: null, tags: ['z'] }),
          item('e', { tags: ['x'], count: 5 }),
          item('f', { value: [1, 'x'], count: 6 }),
          item('g', { value: [null, 2] }),
          item('h', { value: [] }),
          item('i', { value: [{ a: 1 }, 'y'] }),
          item('j', { value: { a: 1 } }),
          item('k', { value: JAN_1 }),
          item('l', { value: 2.5 }),
        ]);
      });

      const matching = async (filter: Parameters<Collection<Item>['find']>[0]): Promise<string[]> =>
        ids(await items.find(filter, { sort: { id: 1 } }));

      it('tells numbers, strings and booleans apart', async () => {
        expect(await matching({ value: 1 })).toEqual(['a', 'f']);
        expect(await matching({ value: '1' })).toEqual(['b']);
        expect(await matching({ value: true })).toEqual(['c']);
        expect(await matching({ value: 2.5 })).toEqual(['l']);
        expect(await matching({ value: { $eq: 2 } })).toEqual(['g']);
        expect(await matching({ value: { $in: [1, '1'] } })).toEqual(['a', 'b', 'f']);
        expect(await matching({ value: { $in: ['x', true] } })).toEqual(['c', 'f']);
        expect(await matching({ value: { $in: [] } })).toEqual([]);
      });

      it('matches an array by any element, never by an object in it', async () => {
        expect(await matching({ value: 'x' })).toEqual(['f']);
        expect(await matching({ value: { $in: ['y', 1] } })).toEqual(['a', 'f', 'i']);
        expect(await matching({ value: { $in: [2, 'x'] } })).toEqual(['f', 'g']);
        expect(await matching({ tags: { $in: ['x', 'y'] } })).toEqual(['a', 'b', 'e']);
        expect(await matching({ tags: { $in: ['w'] } })).toEqual([]);
      });

      it('matches null against null, a missing field and an array holding null', async () => {
        expect(await matching({ value: null })).toEqual(['d', 'e', 'g']);
        expect(await matching({ value: { $eq: null } })).toEqual(['d', 'e', 'g']);
        expect(await matching({ value: { $in: [null] } })).toEqual(['d', 'e', 'g']);
        expect(await matching({ value: { $in: [null, '1'] } })).toEqual(['b', 'd', 'e', 'g']);
        expect(await matching({ count: null, tags: 'z' })).toEqual(['d']);
      });

      it('matches Dates by their time, never a number', async () => {
        expect(await matching({ value: new Date(JAN_1.getTime()) })).toEqual(['k']);
        expect(await matching({ value: { $in: [JAN_1, 2] } })).toEqual(['g', 'k']);
        expect(await matching({ value: JAN_1.getTime() })).toEqual([]);
      });

      it('combines several equalities, ids and other operators', async () => {
        expect(await matching({ tags: 'y', count: 2 })).toEqual(['b']);
        expect(await matching({ count: { $in: [1, 5] }, tags: 'x' })).toEqual(['a', 'e']);
        expect(await matching({ value: { $in: [1, '1'] }, count: { $gt: 1 } })).toEqual(['b', 'f']);
        expect(await matching({ id: { $in: ['a', 'zz', 'c'] }, count: { $in: [1, 2] } })).toEqual([
          'a',
        ]);
        expect(await matching({ id: 'zz' })).toEqual([]);
        expect(await items.count({ value: { $in: [1, '1', null] } })).toBe(6);
      });

      it('finds documents by their values after updates and deletes', async () => {
        expect(
          await items.updateMany({ value: { $in: [1, 'x'] } }, { $set: { value: 'one' } }),
        ).toBe(2);
        expect(await matching({ value: 1 })).toEqual([]);
        expect(await matching({ value: 'one' })).toEqual(['a', 'f']);
        await items.updateOne({ id: 'h' }, { $push: { tags: 'x' } });
        expect(await matching({ tags: 'x' })).toEqual(['a', 'e', 'h']);
        expect(await items.deleteMany({ tags: { $in: ['x'] }, count: { $in: [1, null] } })).toBe(2);
        expect(await matching({ tags: 'x' })).toEqual(['e']);
        expect(await matching({ id: { $in: ['a', 'h'] } })).toEqual([]);
      });
    });

    describe('collections and lifecycle', () => {
      it('returns the same data for a collection declared twice alike', async () => {
        const stored = tournament();
        await tournaments.insertOne(stored);
        const again = store.collection({ ...tournamentsDefinition });
        expect(await again.findById(stored.id)).toEqual(stored);
      });

      it('refuses a second, different definition under one name', () => {
        expect(() => store.collection({ ...tournamentsDefinition, indexes: [] })).toThrow(
          /declared differently/,
        );
      });

      it('initialises again without error', async () => {
        await store.init();
        await tournaments.insertOne(tournament({ slug: 'after-init' }));
        await expect(tournaments.insertOne(tournament({ slug: 'after-init' }))).rejects.toThrow(
          DuplicateKeyError,
        );
      });

      it('answers ping', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
      });

      it('rejects operations after close and closes twice without error', async () => {
        await store.close();
        await store.close();
        await expect(tournaments.findById('any')).rejects.toThrow();
        await expect(store.ping()).rejects.toThrow();
      });
    });
  });
}
