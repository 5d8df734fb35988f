import {
  publishRoundOneVotes,
  recordGameEvents,
  startEngine,
  startInfrastructure,
  startOneSecondGame,
  waitFor,
  type TestEngine,
} from './support';

/**
 * A round resolves only once every vote produced before its close is applied: the engine
 * captures the end of the tournament's `game.votes` partition after the grace and waits for its
 * applier to reach it. Here the applier's progress is held back, as a lagging consumer's would
 * be, while the votes themselves are counted at once.
 */
describe('the close of a round and the votes before it', () => {
  let infra: Awaited<ReturnType<typeof startInfrastructure>>;
  let engine: TestEngine;
  let recorder: Awaited<ReturnType<typeof recordGameEvents>>;
  let held = false;
  let appliedReads = 0;
  /** The round's `votesEndOffset` each time the runner captured the partition's end. */
  let markedAtCapture: string[] = [];

  beforeEach(async () => {
    held = false;
    appliedReads = 0;
    markedAtCapture = [];
    infra = await startInfrastructure();
    engine = await startEngine(
      infra.infrastructure,
      'engine-a',
      {},
      {
        votesProgress: (real) => ({
          ...real,
          applied: async (partition) => {
            appliedReads += 1;
            return held ? 0n : real.applied(partition);
          },
          endOffset: async (partition) => {
            const states = await Promise.all(
              ['t-lag', 't-now'].map((id) => engine.app.live.state(id)),
            );
            markedAtCapture.push(...states.flatMap((state) => state?.votesEndOffset ?? []));
            return real.endOffset(partition);
          },
        }),
      },
    );
    recorder = await recordGameEvents(infra.infrastructure.bus, 'test-recorder');
  });

  afterEach(async () => {
    await recorder.stop();
    await engine.group.stop();
    await infra.stop();
  });

  const results = () =>
    recorder.events.flatMap((event) =>
      event.kind.case === 'roundResults' && event.kind.value.roundNumber === 1
        ? [event.kind.value]
        : [],
    );

  it('waits for a lagging applier to reach the end captured at the close, then counts every vote', async () => {
    const { bus } = infra.infrastructure;
    const gameId = await startOneSecondGame(bus, engine.app, recorder, 't-lag', ['a', 'b', 'c']);
    held = true;
    await publishRoundOneVotes(bus, 't-lag', gameId, [
      ['a', 0],
      ['b', 0],
      ['c', 1],
    ]);
    await waitFor(async () => {
      const state = await engine.app.live.state('t-lag');
      const captured = state?.phase === 'voting_ended' && state.votesEndOffset !== '';
      return captured || results().length > 0;
    }, 'the end of the votes captured');
    const readsAtCapture = appliedReads;
    // The marker: the runner asks the applier twice more. A step that reads the lagging applier
    // either resolves the round or waits and asks again; a second read means the first waited.
    await waitFor(
      () => appliedReads >= readsAtCapture + 2 || results().length > 0,
      'the runner asking the lagging applier again (or resolving the round)',
    );
    // Still waiting: no results while the applier lags.
    expect(results()).toHaveLength(0);
    expect((await engine.app.live.state('t-lag'))?.phase).toBe('voting_ended');

    held = false;
    await waitFor(() => results().length === 1, 'round 1 results');
    expect(results()[0]).toMatchObject({ totalVotes: 3, winningImageIds: ['round-1-image-1'] });
  });

  it('resolves at once when nothing lags at the close, every vote counted', async () => {
    const { bus } = infra.infrastructure;
    const gameId = await startOneSecondGame(bus, engine.app, recorder, 't-now', ['a', 'b', 'c']);
    await publishRoundOneVotes(bus, 't-now', gameId, [
      ['a', 2],
      ['b', 3],
      ['c', 3],
    ]);
    await waitFor(() => results().length === 1, 'round 1 results');
    expect(results()[0]).toMatchObject({ totalVotes: 3, winningImageIds: ['round-1-image-2'] });
    expect((await engine.app.live.state('t-now'))?.votesEndOffset).not.toBe('');
    // The votes were marked closing before the end was captured: a vote the gateway settles
    // after the mark is not acknowledged unless counted (ADR 9). The reads before the mark are
    // the close's leader probe (ADR 9, 7); once marked, every read is the capture's.
    // (One capture per partition the game's vote slots use, docs/adr/0012.)
    const marked = markedAtCapture.indexOf('closing');
    expect(marked).toBeGreaterThanOrEqual(0);
    expect(new Set(markedAtCapture.slice(0, marked))).toEqual(new Set(marked > 0 ? [''] : []));
    expect(new Set(markedAtCapture.slice(marked))).toEqual(new Set(['closing']));
  });
});
