import { randomUUID } from 'node:crypto';
import { acquireLease } from '@underdog/live-game';
import { createMemoryStore, storeWith, type LiveStore } from '@underdog/store';
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

// The chart's lease; renewed every quarter of it.
const TTL_MS = 1_000;

/**
 * The live store on a clock the test moves (its TTLs: the game's lease), recording every lease
 * take or renewal: which replica asked and what it got (a fence, or 0: held by another).
 */
function leaseWatchingStore() {
  let aheadMs = 0;
  const store = createMemoryStore({ now: () => Date.now() + aheadMs });
  const leases: Array<{ owner: string; token: number }> = [];
  const run: LiveStore['run'] = async (script, keys, args) => {
    const reply = await store.run(script, keys, args);
    if ((script as unknown) === acquireLease) {
      leases.push({ owner: String(args[0]), token: Number(reply) });
    }
    return reply;
  };
  return {
    store: storeWith(store, { run }),
    leases,
    advance: (ms: number) => void (aheadMs += ms),
  };
}

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
    const watched = leaseWatchingStore();
    const infrastructure = { ...infra.infrastructure, store: watched.store };
    const ends: string[] = [];
    // The first end's record write is held until the test lets it go.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slowEnd = (records: GameRecords, replica: string) =>
      recordsWith(records, {
        gameEnded: async (end) => {
          ends.push(replica);
          if (ends.length === 1) await held;
          await records.gameEnded(end);
        },
      });
    const env = {
      GAME_LEASE_TTL_MS: String(TTL_MS),
      GAME_RECORDS_DELAY_MS: '0',
      // The end waits for its held write for as long as the test holds it. At the default 2 s
      // bound the end went out without its records while the write was still held (as designed),
      // the game left the active set and the other replica had nothing left to sweep: the test
      // waited for its ask for ever (the full run of cd8fce5, load ≈ 13).
      GAME_END_RECORDS_WAIT_MS: '60000',
    };
    const a = await startEngine(infrastructure, 'engine-a', env, {
      records: () => slowEnd(createGameRecords(documents), 'a'),
    });
    const b = await startEngine(infrastructure, 'engine-b', env, {
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
      await waitFor(() => ends.length > 0, "the end's record write begun", 20_000);
      const writer = ends[0] === 'a' ? 'engine-a' : 'engine-b';
      const other = writer === 'engine-a' ? 'engine-b' : 'engine-a';
      // The write outlasts four lease TTLs on the store's clock, moved half a TTL at a time:
      // after each move the writer must renew (the marker) before the lease would lapse. Before
      // the fix no renewal came during a step, and the other replica took the game over.
      for (let step = 0; step < 8; step += 1) {
        const seen = watched.leases.length;
        watched.advance(TTL_MS / 2);
        await waitFor(
          () =>
            watched.leases.slice(seen).some(({ owner, token }) => owner === writer && token > 0),
          `${writer} renewing its lease during the write (step ${step + 1})`,
        );
      }
      // And the other replica, sweeping meanwhile, is refused.
      const seen = watched.leases.length;
      await waitFor(
        () => watched.leases.slice(seen).some(({ owner }) => owner === other),
        `${other} asking for the game's lease`,
      );
      expect(watched.leases.filter(({ owner, token }) => owner === other && token > 0)).toEqual([]);
      release();
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
      release();
      await recorder.stop();
      await a.group.stop();
      await b.group.stop(); // a no-op once stopped
      await watched.store.close();
      await infra.stop();
    }
  }, 60_000);
});
