import { randomUUID } from 'node:crypto';
import type { Collection, DocumentStore, Identified } from '@underdog/documents';
import { createGameReads, createGameRecords, type GameRecords } from '../src/persistence';
import { participantsCollection } from '../src/persistence/collections';
import {
  publishRoundOneVotes,
  recordGameEvents,
  recordsWith,
  startEngine,
  startInfrastructure,
  startOneSecondGame,
  waitFor,
} from './support';

/**
 * The documents the participants' elimination updates changed: on FerretDB each is a locked
 * write that scans the collection, ~0.1 s apiece once a few games are stored.
 */
function countingEliminations(documents: DocumentStore) {
  const counted = { updated: 0 };
  const store: DocumentStore = {
    init: () => documents.init(),
    ping: () => documents.ping(),
    close: () => documents.close(),
    collection: <T extends Identified>(definition: Parameters<DocumentStore['collection']>[0]) => {
      const collection = documents.collection(definition) as unknown as Collection<T>;
      if (definition.name !== participantsCollection.name) return collection;
      return new Proxy(collection, {
        get(target, property, receiver) {
          if (property !== 'updateMany') return Reflect.get(target, property, receiver) as unknown;
          return async (...args: Parameters<Collection<T>['updateMany']>) => {
            const updated = await target.updateMany(...args);
            counted.updated += updated;
            return updated;
          };
        },
      });
    },
  };
  return { store, counted };
}

/**
 * Issue 29's stalled ends: a game whose start was never recorded where it ran (the replica that
 * began it froze or died in round 1, or its write gave up) has its whole records written at its
 * end. The participants went in not eliminated and were then eliminated one update each — with
 * 300 players on FerretDB, minutes, while the lease lapsed and the other replica did the same.
 * Now each participant's document goes in already eliminated when that is known: at the end,
 * and for round 1 (most of the players) when the start is recorded after round 1's results.
 */
describe("the participants' records", () => {
  it('of a game whose start was never recorded are written at its end with the participants already eliminated', async () => {
    const infra = await startInfrastructure();
    const { bus, documents } = infra.infrastructure;
    const counting = countingEliminations(documents);
    // The game's start record fails every time it is tried (the first try and its 5 retries):
    // this replica gives it up, and the game's end writes the whole game.
    let refused = 0;
    const startless = (records: GameRecords) =>
      recordsWith(records, {
        gameStarted: async (game) => {
          if (refused < 6) {
            refused += 1;
            throw new Error('the store is away');
          }
          await records.gameStarted(game);
        },
      });
    const engine = await startEngine(
      infra.infrastructure,
      'engine-startless',
      {},
      { records: () => startless(createGameRecords(counting.store)) },
    );
    const recorder = await recordGameEvents(bus, 'startless-recorder');
    try {
      const tournamentId = randomUUID();
      const players = ['ann', 'bob', 'cyd', 'dan'];
      const gameId = await startOneSecondGame(bus, engine.app, recorder, tournamentId, players);
      // ann alone picks image 0 and wins; bob and cyd pick 1; dan does not vote.
      await publishRoundOneVotes(bus, tournamentId, gameId, [
        ['ann', 0],
        ['bob', 1],
        ['cyd', 1],
      ]);
      const reads = createGameReads(documents);
      await waitFor(
        async () => (await reads.history()).some((entry) => entry.gameId === gameId),
        'the game in the history',
        20_000,
      );
      expect(refused).toBe(6);
      const statistics = await reads.statistics(tournamentId);
      expect(statistics?.status).toBe('finished');
      expect(
        statistics?.participants
          .map((p) => `${p.username}:${p.isEliminated}:${p.eliminatedInRound}`)
          .sort(),
      ).toEqual(['ann:false:undefined', 'bob:true:1', 'cyd:true:1', 'dan:true:1']);
      // Before: 3 (bob, cyd and dan, one update each, after their documents went in).
      expect(counting.counted.updated).toBe(0);
    } finally {
      await recorder.stop();
      await engine.group.stop();
      await infra.stop();
    }
  }, 30_000);

  it('are written, when the start is recorded, with round 1 eliminated already', async () => {
    const infra = await startInfrastructure();
    const { bus, documents } = infra.infrastructure;
    const counting = countingEliminations(documents);
    const engine = await startEngine(
      infra.infrastructure,
      'engine-start-record',
      {},
      { records: () => createGameRecords(counting.store) },
    );
    const recorder = await recordGameEvents(bus, 'start-record-recorder');
    try {
      const tournamentId = randomUUID();
      const gameId = await startOneSecondGame(bus, engine.app, recorder, tournamentId, [
        'ann',
        'bob',
        'cyd',
        'dan',
      ]);
      await publishRoundOneVotes(bus, tournamentId, gameId, [
        ['ann', 0],
        ['bob', 1],
        ['cyd', 1],
      ]);
      const reads = createGameReads(documents);
      await waitFor(
        async () => (await reads.history()).some((entry) => entry.gameId === gameId),
        'the game in the history',
        20_000,
      );
      const statistics = await reads.statistics(tournamentId);
      expect(
        statistics?.participants
          .map((p) => `${p.username}:${p.isEliminated}:${p.eliminatedInRound}`)
          .sort(),
      ).toEqual(['ann:false:undefined', 'bob:true:1', 'cyd:true:1', 'dan:true:1']);
      // Before: 3 (round 1's record updated bob, cyd and dan one by one after the start record).
      expect(counting.counted.updated).toBe(0);
    } finally {
      await recorder.stop();
      await engine.group.stop();
      await infra.stop();
    }
  }, 30_000);
});
