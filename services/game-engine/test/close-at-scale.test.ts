import { randomUUID } from 'node:crypto';
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

  it('is finished by the replica that takes it over mid-elimination, as it was resolved', async () => {
    await closeTakenOverMidElimination(infra.infrastructure, engines);
  });
});
