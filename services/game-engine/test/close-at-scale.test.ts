import { randomUUID } from 'node:crypto';
import { gameKeys } from '@underdog/live-game';
import { MEMBERS_PER_STEP, storeWith } from '@underdog/store';
import {
  advancing,
  busWatchingResults,
  closeTakenOverMidElimination,
  expectClosedExactly,
  roundResultsOf,
  seedRoundInTally,
} from './close-support';
import {
  recordGameEvents,
  startEngine,
  startInfrastructure,
  waitFor,
  type TestEngine,
} from './support';

/**
 * Issue 35, point 4: a round's close with 25,000 players, seeded by pipelined writes in the memory
 * store, none of whose steps grows with the audience (the voters in `close-support.ts`).
 */
describe("a round's close with 25,000 players", () => {
  let infra: Awaited<ReturnType<typeof startInfrastructure>>;
  const engines: TestEngine[] = [];

  beforeEach(async () => {
    infra = await startInfrastructure();
  });

  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.group.stop();
    await infra.stop();
  });

  it('eliminates exactly the players who did not vote for the winning image, and the disqualified', async () => {
    const { store, bus } = infra.infrastructure;
    const tournamentId = randomUUID();
    const recorder = await recordGameEvents(bus, `close-at-scale-${randomUUID()}`);
    await seedRoundInTally(store, tournamentId);
    const watched = busWatchingResults(bus, store, tournamentId);
    engines.push(await startEngine({ ...infra.infrastructure, bus: watched.bus }, 'engine-a'));
    await waitFor(() => roundResultsOf(recorder.events).length > 0, 'round 1 results', 30_000);
    await expectClosedExactly(store, tournamentId, recorder.events);
    expect(watched.stillInAtResults).toEqual([advancing.length]);
    await recorder.stop();
  });

  it('reads no list of the whole audience before its results: the tallies, then the alive set chunk by chunk', async () => {
    const { store, bus } = infra.infrastructure;
    const tournamentId = randomUUID();
    const recorder = await recordGameEvents(bus, `close-at-scale-${randomUUID()}`);
    await seedRoundInTally(store, tournamentId);
    const keys = gameKeys(tournamentId);
    const wholeReads: string[] = [];
    const widest: number[] = [];
    let resultsOut = false;
    const watching = storeWith(store, {
      sMembers: (key) => {
        if (!resultsOut) wholeReads.push(`SMEMBERS ${key}`);
        return store.sMembers(key);
      },
      hGetAll: (key) => {
        if (!resultsOut && key !== keys.state && !key.endsWith(':tally')) {
          wholeReads.push(`HGETALL ${key}`);
        }
        return store.hGetAll(key);
      },
      hScan: (key) => {
        if (!resultsOut) wholeReads.push(`HSCAN ${key}`);
        return store.hScan(key);
      },
      hGetMany: (key, fields) => {
        widest.push(fields.length);
        return store.hGetMany(key, fields);
      },
    });
    const watched = busWatchingResults(bus, store, tournamentId);
    engines.push(
      await startEngine({ ...infra.infrastructure, store: watching, bus: watched.bus }, 'engine-a'),
    );
    await waitFor(() => roundResultsOf(recorder.events).length > 0, 'round 1 results', 30_000);
    resultsOut = true;
    await expectClosedExactly(store, tournamentId, recorder.events);
    // Of the game's keys only the disqualification marks (one) are read whole: no ballots hash,
    // no alive set (the sweep's list of active games is not the audience).
    const ofTheGame = wholeReads.filter((read) => read.includes(tournamentId));
    expect(ofTheGame.filter((read) => !read.includes('disqualified'))).toEqual([]);
    expect(Math.max(...widest)).toBeLessThanOrEqual(MEMBERS_PER_STEP);
    await recorder.stop();
  });

  it('is finished by the replica that takes it over mid-elimination, as it was resolved', async () => {
    await closeTakenOverMidElimination(infra.infrastructure, engines);
  });
});
