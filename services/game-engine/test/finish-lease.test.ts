import { randomUUID } from 'node:crypto';
import { createGameRecords, type GameRecords } from '../src/persistence';
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
 * Issue 29: the game's end step (`finish`) writes its records before it announces the end; on a
 * slow document store (FerretDB rewriting a game taken over) that outlasted the lease, the other
 * replica took the game over and repeated the end. The runner now renews its lease through every
 * step, so the end is made once, by one replica.
 */
describe("the game's end", () => {
  it('holds its lease while its records are slow: the other replica does not repeat it', async () => {
    const infra = await startInfrastructure();
    const { bus, documents } = infra.infrastructure;
    const ends: string[] = [];
    // The end's record write takes 4 lease TTLs (the lease is 200 ms here).
    const slowEnd = (records: GameRecords, replica: string) =>
      recordsWith(records, {
        gameEnded: async (end) => {
          ends.push(replica);
          await new Promise((resolve) => setTimeout(resolve, 800));
          await records.gameEnded(end);
        },
      });
    const env = { GAME_LEASE_TTL_MS: '200', GAME_RECORDS_DELAY_MS: '0' };
    const a = await startEngine(infra.infrastructure, 'engine-a', env, {
      records: () => slowEnd(createGameRecords(documents), 'a'),
    });
    const b = await startEngine(infra.infrastructure, 'engine-b', env, {
      records: () => slowEnd(createGameRecords(documents), 'b'),
    });
    const recorder = await recordGameEvents(bus, 'finish-lease-recorder');
    try {
      const tournamentId = randomUUID();
      const gameId = await startOneSecondGame(bus, a.app, recorder, tournamentId, [
        'ann',
        'bob',
        'cyd',
      ]);
      // ann alone on image 0: she wins round 1 as the last standing, and the game ends.
      await publishRoundOneVotes(bus, tournamentId, gameId, [
        ['ann', 0],
        ['bob', 1],
        ['cyd', 1],
      ]);
      await waitFor(
        () => recorder.events.some((event) => event.kind.case === 'gameEnded'),
        'game_ended',
        20_000,
      );
      await waitFor(
        async () => !(await a.app.live.activeGames()).includes(tournamentId),
        'the game inactive',
      );
      // The marker: engine-b's clean stop waits for every game it runs and writes the records
      // still pending, so an end it repeated after taking the game over is in `ends` once the
      // stop is over. (The game is inactive: no sweep of b's can take it over after this.)
      await b.group.stop();
      // Before: ['a', 'b'] (or ['b', 'a']): the other replica took the lapsed lease and wrote
      // (and announced) the end again.
      expect(ends).toHaveLength(1);
    } finally {
      await recorder.stop();
      await a.group.stop();
      await b.group.stop(); // a no-op once stopped
      await infra.stop();
    }
  }, 30_000);
});
