/**
 * Times the memory adapter on the engine's end-of-round writes at 10,000 players (issue 36):
 * `insertMany` of 10,000 participants in batches of 100 (as `insertMissing` does), then
 * eliminating them all with `updateMany({ gameId, userId: { $in: 500 ids }, isEliminated: false })`
 * (20 chunks at 10,000), lookups by id, and `insertMany` of 10,000 vote rows. Prints figures; asserts nothing about speed.
 *
 *   npx tsx packages/documents/test/memory-bench.ts [players]
 */
import { performance } from 'node:perf_hooks';
import { createMemoryDocumentStore, defineCollection, required, Schema } from '../src';
import { castDocument, validationModels } from '../src/schema';

const participants = defineCollection({
  name: 'game_participants',
  schema: new Schema({
    gameId: required(String),
    userId: required(String),
    username: required(String),
    isEliminated: required(Boolean),
    eliminatedInRound: { type: Number, min: 1 },
    lostDraw: Boolean,
    disqualificationReason: String,
    isOfflinePlayer: required(Boolean),
    joinedAt: required(Date),
  }),
  indexes: [{ fields: { gameId: 1, userId: 1 }, unique: true }],
});

const votes = defineCollection({
  name: 'player_votes',
  schema: new Schema({
    gameId: required(String),
    roundId: required(String),
    roundNumber: { type: Number, required: true, min: 1 },
    userId: required(String),
    username: required(String),
    imageId: required(String),
    isWinningVote: required(Boolean),
    isOfflinePlayer: required(Boolean),
    votedAt: required(Date),
  }),
  indexes: [{ fields: { roundId: 1, userId: 1 }, unique: true }, { fields: { gameId: 1 } }],
});

const players = Number(process.argv[2] ?? 10_000);
const chunk = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) =>
    items.slice(i * size, (i + 1) * size),
  );

async function timed(label: string, work: () => Promise<unknown>): Promise<void> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  console.log(
    `${label.padEnd(58)} wall ${wall.toFixed(0).padStart(6)} ms  cpu ${cpuMs.toFixed(0).padStart(6)} ms`,
  );
}

async function main(): Promise<void> {
  const store = createMemoryDocumentStore();
  const gameId = 'game-1';
  const userIds = Array.from({ length: players }, (_, i) => `user-${i}`);
  const participantRows = userIds.map((userId) => ({
    id: `${gameId}:${userId}`,
    gameId,
    userId,
    username: `player ${userId}`,
    isEliminated: false,
    isOfflinePlayer: false,
    joinedAt: new Date(),
  }));
  const voteRows = userIds.map((userId, i) => ({
    id: `${gameId}:1:${userId}`,
    gameId,
    roundId: `${gameId}:1`,
    roundNumber: 1,
    userId,
    username: `player ${userId}`,
    imageId: `image-${i % 4}`,
    isWinningVote: i % 4 === 0,
    isOfflinePlayer: false,
    votedAt: new Date(),
  }));

  const people = store.collection(participants);
  const ballots = store.collection(votes);
  console.log(`memory document store, ${players} players`);
  await timed(`insertMany ${players} participants (batches of 100)`, async () => {
    for (const batch of chunk(participantRows, 100)) await people.insertMany(batch);
  });
  const eliminated = userIds;
  let matched = 0;
  await timed(`updateMany $in 500 ids × ${Math.ceil(eliminated.length / 500)} chunks`, async () => {
    for (const ids of chunk(eliminated, 500)) {
      matched += await people.updateMany(
        { gameId, userId: { $in: ids }, isEliminated: false },
        { $set: { isEliminated: true, eliminatedInRound: 1 } },
      );
    }
  });
  if (matched !== eliminated.length) throw new Error(`matched ${matched} of ${eliminated.length}`);
  await timed(`insertMany ${players} votes (batches of 100)`, async () => {
    for (const batch of chunk(voteRows, 100)) await ballots.insertMany(batch);
  });
  await timed(`count({ gameId }) × 10`, async () => {
    for (let i = 0; i < 10; i += 1) await people.count({ gameId });
  });
  await timed(`findOne({ id }) × 1,000`, async () => {
    for (const userId of userIds.slice(0, 1000))
      await people.findOne({ id: `${gameId}:${userId}` });
  });
  await timed(`find({ id: { $in: 100 ids } }) × 10`, async () => {
    const ids = chunk(
      participantRows.map(({ id }) => id),
      100,
    ).slice(0, 10);
    for (const some of ids) await people.find({ id: { $in: some } });
  });

  // The cast's share: the schema's validation alone, on the same vote rows.
  const model = validationModels()(votes);
  await timed(`castDocument alone × ${players} votes`, async () => {
    for (const { id, ...fields } of voteRows)
      await castDocument(model, 'player_votes', { _id: id, ...fields });
  });
  await store.close();
}

void main();
