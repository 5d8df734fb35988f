import { randomUUID } from 'node:crypto';
import { createGameReads, createGameRecords, type GameRecords } from '../src/persistence';
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
 * The round loop never waits for MongoDB: a round's records are written in the background. When
 * the replica writing them dies (the e2e test's SIGKILL left 44 eliminations unwritten), the one
 * that ends the game writes the whole game's records again from the live store, so the records
 * come out complete; so does a replica one of whose writes failed for good.
 */
describe('the records of a game whose writer died', () => {
  it('are completed at the end of the game from the live store', async () => {
    const infra = await startInfrastructure();
    const { bus, documents } = infra.infrastructure;
    // Round 1's write fails every time it is tried (the first try and its 5 retries, a second
    // apart), as if its store were away: this replica gives it up.
    let lost = 0;
    const lossy = (records: GameRecords) =>
      recordsWith(records, {
        roundResolved: async (round) => {
          if (round.roundNumber === 1 && lost < 6) {
            lost += 1;
            throw new Error('the store is away');
          }
          await records.roundResolved(round);
        },
      });
    const engine = await startEngine(
      infra.infrastructure,
      'engine-repair',
      {},
      { records: (context) => lossy(createGameRecords(context.infrastructure.documents)) },
    );
    const recorder = await recordGameEvents(bus, 'repair-recorder');
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
      expect(lost).toBe(6);
      const details = await reads.details(tournamentId);
      expect(details?.winner).toEqual({ username: 'ann' });
      expect(details?.rounds.map((round) => round.roundNumber)).toEqual([1]);
      expect(
        details?.rounds[0]?.votes.map((vote) => `${vote.username}:${vote.imageId}`).sort(),
      ).toEqual(['ann:round-1-image-0', 'bob:round-1-image-1', 'cyd:round-1-image-1']);
      expect(details?.rounds[0]?.eliminatedPlayers.map((p) => p.username).sort()).toEqual([
        'bob',
        'cyd',
        'dan',
      ]);
      const statistics = await reads.statistics(tournamentId);
      expect(statistics?.roundsPlayed).toBe(1);
      expect(
        statistics?.participants
          .map((p) => `${p.username}:${p.isEliminated}:${p.eliminatedInRound}`)
          .sort(),
      ).toEqual(['ann:false:undefined', 'bob:true:1', 'cyd:true:1', 'dan:true:1']);
    } finally {
      await recorder.stop();
      await engine.group.stop();
      await infra.stop();
    }
  }, 30_000);
});
