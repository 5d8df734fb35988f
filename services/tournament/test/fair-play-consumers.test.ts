import { createMemoryBus, type MemoryBus } from '@underdog/bus';
import { createMemoryDocumentStore, type DocumentStore } from '@underdog/documents';
import { topics } from '@underdog/platform';
import {
  GameVoteEventSchema,
  FairPlaySignalSchema,
  create,
  encodeEvent,
  timestampFromDate,
} from '@underdog/proto';
import { FairPlayRepository } from '../src/adapters/fair-play-repository';
import { FairPlay } from '../src/application/fair-play';
import type { Tournaments } from '../src/application/tournaments';
import { fairPlayConsumers } from '../src/fair-play-consumers';
import { logger, testClock, waitFor } from './support';

/*
 * Issue 28 §1 (batching): the fair-play consumers store a consumed batch's rows in ONE write,
 * not one insert per vote; a batch delivered again (its first delivery failed after the write)
 * adds no row twice. Issue 36: a vote's one row also says where it came from (the keyed hashes on
 * its game.votes event); no second row per vote.
 */
describe('the fair-play consumers', () => {
  const tournamentId = 't-batch';
  const t0 = new Date('2030-01-01T12:00:00.000Z');
  let bus: MemoryBus;
  let documents: DocumentStore;
  let repository: FairPlayRepository;
  let fairPlay: FairPlay;

  beforeEach(async () => {
    bus = createMemoryBus({ logger, defaultPartitions: 1 }); // a topic's backlog: one batch
    documents = createMemoryDocumentStore();
    repository = new FairPlayRepository(documents);
    await documents.init();
    fairPlay = new FairPlay({
      repository,
      tournaments: {} as Tournaments, // the report is not read here
      clock: testClock(),
    });
  });
  afterEach(async () => {
    await bus.close();
    await documents.close();
  });

  const voteMessage = (i: number) =>
    encodeEvent(
      GameVoteEventSchema,
      create(GameVoteEventSchema, {
        tournamentId,
        kind: {
          case: 'voteCast',
          value: {
            voteId: `v-${i}`,
            gameId: 'g',
            userId: `u-${i}`,
            username: `name-${i}`,
            roundNumber: 1,
            imageId: `round-1-image-${i % 4}`,
            castAt: timestampFromDate(new Date(t0.getTime() + i * 10)),
            deviceId: `d-${i}`,
            // Where it came from, as the gateway's keyed hashes (issue 36).
            fairPlayDeviceId: `dev:h-${i}`,
            fairPlayAddressPrefix: 'v4:abc',
            fairPlayUserAgent: i % 2 === 0 ? 'ua:def' : '',
          },
        },
      }),
      { key: tournamentId, id: `v-${i}` },
    );
  const signalMessage = (i: number) =>
    encodeEvent(
      FairPlaySignalSchema,
      create(FairPlaySignalSchema, {
        userId: i < 0 ? '' : `u-${i}`, // no user: unusable, skipped
        occurredAt: timestampFromDate(t0),
        deviceId: `d-${i}`,
        addressPrefix: 'v4:abc',
        userAgent: 'ua:def',
        kind: { case: 'joined', value: { tournamentId } },
      }),
      { key: `u-${i}`, id: `s-${i}` },
    );

  async function run(consumers: ReturnType<typeof fairPlayConsumers>, body: () => Promise<void>) {
    for (const consumer of consumers) await consumer.start?.();
    try {
      await body();
    } finally {
      for (const consumer of consumers) await consumer.stop?.();
    }
  }

  it('writes a batch of 300 votes and 300 signals in one call each, every row once', async () => {
    // Published before the consumers join: each topic's backlog comes as one batch.
    await bus.publish(
      topics.gameVotes.name,
      Array.from({ length: 300 }, (_, i) => voteMessage(i)),
    );
    await bus.publish(topics.fairPlaySignals.name, [
      ...Array.from({ length: 300 }, (_, i) => signalMessage(i)),
      signalMessage(-1),
    ]);
    const writes = jest.spyOn(fairPlay, 'recordAll');
    const oneByOne = jest.spyOn(repository, 'record');
    await run(fairPlayConsumers({ bus, fairPlay, logger }), async () => {
      await waitFor(async () => (await repository.signalsOf(tournamentId)).length === 600);
    });
    expect(writes).toHaveBeenCalledTimes(2);
    expect(writes.mock.calls.map(([rows]) => rows.length).sort()).toEqual([300, 300]);
    expect(oneByOne).not.toHaveBeenCalled();
    const rows = await repository.signalsOf(tournamentId);
    expect(rows.filter((row) => row.kind === 'voted')).toHaveLength(300);
    // The vote's row says where it came from with the keyed hashes it carried (issue 36), never
    // its raw device id (issue 37); an empty hash is not stored.
    const voted = rows.filter((row) => row.kind === 'voted');
    expect(voted.filter((row) => !row.deviceId?.startsWith('dev:h-'))).toEqual([]);
    expect(voted.filter((row) => row.deviceId !== `dev:h-${row.userId.slice(2)}`)).toEqual([]);
    expect(voted.filter((row) => row.addressPrefix !== 'v4:abc')).toEqual([]);
    expect(voted.filter((row) => row.userAgent === 'ua:def')).toHaveLength(150);
    expect(voted.filter((row) => 'userAgent' in row && !row.userAgent)).toEqual([]);
    expect(rows.filter((row) => row.kind === 'joined')).toHaveLength(300);
  });

  it('adds no row twice when a batch is delivered again after its write', async () => {
    await bus.publish(
      topics.gameVotes.name,
      Array.from({ length: 40 }, (_, i) => voteMessage(i)),
    );
    const stored = fairPlay.recordAll.bind(fairPlay);
    const writes = jest.spyOn(fairPlay, 'recordAll');
    let failed = false;
    writes.mockImplementation(async (rows) => {
      await stored(rows);
      if (!failed) {
        failed = true; // the rows are written, then the batch fails: the bus delivers it again
        throw new Error('connection lost after the write');
      }
    });
    await run(fairPlayConsumers({ bus, fairPlay, logger }), async () => {
      await waitFor(() => writes.mock.calls.length >= 2);
      // A later batch overlapping the first: only the new vote is added.
      await bus.publish(topics.gameVotes.name, [voteMessage(39), voteMessage(40)]);
      await waitFor(async () => (await repository.signalsOf(tournamentId)).length === 41);
    });
    const rows = await repository.signalsOf(tournamentId);
    expect(rows).toHaveLength(41);
    expect(new Set(rows.map((row) => `${row.userId}:${row.roundNumber}`)).size).toBe(41);
  });

  it('skips a row the schema refuses and stores the batch’s others', async () => {
    const bad = encodeEvent(
      GameVoteEventSchema,
      create(GameVoteEventSchema, {
        tournamentId,
        kind: {
          case: 'voteCast',
          value: {
            voteId: 'v-bad',
            userId: 'u-bad',
            roundNumber: 1,
            imageId: 'x',
            // Past any Date: mongoose refuses the row.
            castAt: { seconds: 10n ** 15n, nanos: 0 },
          },
        },
      }),
      { key: tournamentId, id: 'v-bad' },
    );
    await bus.publish(topics.gameVotes.name, [voteMessage(1), bad, voteMessage(2)]);
    await run(fairPlayConsumers({ bus, fairPlay, logger }), async () => {
      await waitFor(async () => (await repository.signalsOf(tournamentId)).length === 2);
    });
    const rows = await repository.signalsOf(tournamentId);
    expect(rows.map((row) => row.userId).sort()).toEqual(['u-1', 'u-2']);
  });
});
