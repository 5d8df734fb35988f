import { randomUUID } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { defineCollection, Schema, type InferDocument } from '../src';
import { LockedMongoCollection } from '../src/mongo-locked-collection';
import { DocumentLocks } from '../src/mongo-locks';
import { storedSchema, type StoredDocument } from '../src/schema';

const url = process.env.UNDERDOG_TEST_MONGO_URL;
if (!url) {
  throw new Error('UNDERDOG_TEST_MONGO_URL is not set: run through the integration global setup');
}
const mongoUrl: string = url;
const dbName = `underdog_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;

const participantSchema = new Schema({
  gameId: { type: String, required: true },
  isEliminated: { type: Boolean, required: true },
  eliminatedInRound: Number,
});
type Participant = InferDocument<typeof participantSchema>;

/** The collection as the store builds it on FerretDB, whatever server the harness runs. */
function lockedParticipants(
  connection: Connection,
  name: string,
  locks = new DocumentLocks(connection),
): LockedMongoCollection<Participant> {
  const definition = defineCollection({ name, schema: participantSchema });
  const model = connection.model<StoredDocument>(name, storedSchema(definition), name);
  return new LockedMongoCollection<Participant>(name, model, [], locks);
}

const players = (count: number): Participant[] =>
  Array.from({ length: count }, (_, i) => ({ id: `p${i}`, gameId: 'g', isEliminated: false }));

async function until(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('locked writes to many documents (FerretDB)', () => {
  let connection: Connection;
  let other: Connection;
  /** The commands this test's own connection sent, by name. */
  const commands: string[] = [];

  beforeAll(async () => {
    connection = await mongoose
      .createConnection(mongoUrl, { dbName, monitorCommands: true, autoIndex: false })
      .asPromise();
    connection.getClient().on('commandStarted', (event) => commands.push(event.commandName));
    other = await mongoose.createConnection(mongoUrl, { dbName, autoIndex: false }).asPromise();
  });

  afterAll(async () => {
    await connection.dropDatabase();
    await Promise.all([connection.close(), other.close()]);
  });

  beforeEach(() => {
    commands.length = 0;
  });

  it('updates sixty documents in a few round trips, not three per document', async () => {
    const participants = lockedParticipants(connection, `participants_${randomUUID()}`);
    await participants.insertMany(players(60));
    commands.length = 0;

    const updated = await participants.updateMany(
      { gameId: 'g', isEliminated: false },
      { $set: { isEliminated: true, eliminatedInRound: 2 } },
    );
    const sent = [...commands];

    expect(updated).toBe(60);
    expect(await participants.count({ isEliminated: true, eliminatedInRound: 2 })).toBe(60);
    // Find the ids, insert their locks, update them, delete the locks.
    expect(sent).toEqual(['find', 'insert', 'update', 'delete']);
  });

  it('deletes sixty documents in a few round trips', async () => {
    const participants = lockedParticipants(connection, `participants_${randomUUID()}`);
    await participants.insertMany(players(60));
    commands.length = 0;

    expect(await participants.deleteMany({ gameId: 'g' })).toBe(60);
    const sent = [...commands];

    expect(await participants.count({})).toBe(0);
    expect(sent).toEqual(['find', 'insert', 'delete', 'delete']);
  });

  it('updates a document another process holds once it lets go, the others at once', async () => {
    const name = `participants_${randomUUID()}`;
    const participants = lockedParticipants(connection, name);
    await participants.insertMany(players(20));
    const elsewhere = new DocumentLocks(other);
    let updating: Promise<number> | undefined;

    await elsewhere.withLock(name, 'p7', async () => {
      updating = participants.updateMany(
        { gameId: 'g', isEliminated: false },
        { $set: { isEliminated: true, eliminatedInRound: 1 } },
      );
      await until(async () => (await participants.count({ isEliminated: true })) === 19);
      // Held elsewhere: not written while it is.
      expect((await participants.findById('p7'))?.isEliminated).toBe(false);
    });

    expect(await updating).toBe(20);
    expect((await participants.findById('p7'))?.isEliminated).toBe(true);
  });

  it('leaves a document a writer of this process holds to its queue, the others at once', async () => {
    const name = `participants_${randomUUID()}`;
    const locks = new DocumentLocks(connection);
    const participants = lockedParticipants(connection, name, locks);
    await participants.insertMany(players(5));
    let updating: Promise<number> | undefined;

    await locks.withLock(name, 'p2', async () => {
      updating = participants.updateMany(
        { gameId: 'g', isEliminated: false },
        { $set: { isEliminated: true, eliminatedInRound: 1 } },
      );
      await until(async () => (await participants.count({ isEliminated: true })) === 4);
      expect((await participants.findById('p2'))?.isEliminated).toBe(false);
    });

    expect(await updating).toBe(5);
    expect((await participants.findById('p2'))?.isEliminated).toBe(true);
  });
});
