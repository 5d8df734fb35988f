import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { ComponentGroup, createLogger } from '@underdog/kit';
import { ACTIVE_GAMES_KEY, gameKeys } from '@underdog/live-game';
import { testContext } from '@underdog/test-support';
import type { Infrastructure } from '@underdog/platform';
import type { LiveStore } from '@underdog/store';
import { createGameEngineModule, gameEngineConfig } from '../src';
import { retryDelayMs } from '../src/application/game-runner';
import {
  publishTournamentNews,
  recordGameEvents,
  startEngine,
  startInfrastructure,
  verified,
  waitFor,
  type TestEngine,
} from './support';
import {
  expectCydWonAlone,
  firstEvent,
  openTournament,
  publishVotesCydWins,
  startGame,
  type GameEventKind,
  type GameEventRecorder,
} from './fault-support';

/**
 * The live store with an outage the test switches on: while it is down every command rejects as
 * ioredis's do when Redis is away. `downAfter` takes it down right after a script of that name
 * succeeds, so a step is stored and what follows it fails.
 */
function faultyStore(store: LiveStore) {
  let down = false;
  let downAfter: string | undefined;
  /** Scripts still refused after `restore()`, until `release()`. */
  const held = new Set<string>();
  const unreachable = () => Promise.reject(new Error('Reached the max retries per request limit'));
  const faulty = new Proxy(store, {
    get(target, property, receiver) {
      const original = Reflect.get(target, property, receiver) as unknown;
      if (typeof original !== 'function' || property === 'close') return original;
      if (property === 'sScan' || property === 'hScan') {
        // A scan's steps are commands too: each fails while the store is down.
        return (...args: unknown[]) =>
          (async function* () {
            if (down) throw new Error('Reached the max retries per request limit');
            for await (const chunk of (
              original as (...a: unknown[]) => AsyncIterable<unknown>
            ).apply(target, args)) {
              if (down) throw new Error('Reached the max retries per request limit');
              yield chunk;
            }
          })();
      }
      return async (...args: unknown[]) => {
        if (down) return unreachable();
        if (property === 'run' && held.has((args[0] as { name: string }).name)) {
          return unreachable();
        }
        const result = (await (original as (...a: unknown[]) => Promise<unknown>).apply(
          target,
          args,
        )) as unknown;
        if (property === 'run' && (args[0] as { name: string }).name === downAfter) {
          downAfter = undefined;
          down = true;
        }
        return result;
      };
    },
  });
  return {
    store: faulty,
    failRightAfter: (scriptName: string) => void (downAfter = scriptName),
    isDown: () => down,
    restore: () => void (down = false),
    takeDown: () => void (down = true),
    hold: (scriptName: string) => void held.add(scriptName),
    release: () => held.clear(),
  };
}

describe('a game on a live store that fails', () => {
  let infra: Awaited<ReturnType<typeof startInfrastructure>>;
  let faults: ReturnType<typeof faultyStore>;
  let engine: TestEngine;
  let recorder: GameEventRecorder;

  beforeEach(async () => {
    infra = await startInfrastructure();
    faults = faultyStore(infra.infrastructure.store);
    const infrastructure: Infrastructure = {
      bus: infra.infrastructure.bus,
      documents: infra.infrastructure.documents,
      store: faults.store,
      components: [],
    };
    engine = await startEngine(infrastructure, 'engine-a');
    recorder = await recordGameEvents(infra.infrastructure.bus, 'faults-recorder');
  });

  afterEach(async () => {
    faults.restore();
    await recorder.stop();
    await engine.group.stop();
    await infra.stop();
  });

  const has = (kind: GameEventKind) => firstEvent(recorder, kind) !== undefined;

  it('announces a step it stored before the store failed, once the store is back', async () => {
    const { bus } = infra.infrastructure;
    const tournamentId = randomUUID();
    await openTournament(bus, engine, tournamentId, 1, ['ann', 'bob']);
    // The step to round 1 is stored; the store goes away before the game is announced.
    faults.failRightAfter('underdogAdvanceGame');
    await publishTournamentNews(bus, tournamentId, 'live', 1);
    await waitFor(() => faults.isDown(), 'the store to fail');
    faults.restore();

    await waitFor(() => has('roundVotingStarted'), 'round 1 announced');
    expect(has('gameStarted')).toBe(true);
    // Nobody votes: the game goes on to its end all the same.
    await waitFor(() => has('gameEnded'), 'the game to end');
  });

  it("waits for the round's votes held back by an outage past the deadline and the grace", async () => {
    await engine.group.stop();
    engine = await startEngine(
      {
        bus: infra.infrastructure.bus,
        documents: infra.infrastructure.documents,
        store: faults.store,
        components: [],
      },
      'engine-b',
    );
    const { bus } = infra.infrastructure;
    const tournamentId = randomUUID();
    await openTournament(bus, engine, tournamentId, 2, ['ann', 'bob', 'cyd']);
    const gameId = await startGame(bus, recorder, tournamentId, 2);
    const closesAt = (await engine.app.live.state(tournamentId))!.votingEndsAt;

    // The store goes away with the votes acknowledged (on the bus) but not yet applied, until
    // 3 s past the grace.
    faults.takeDown();
    faults.hold('underdogApplyVotes');
    await publishVotesCydWins(bus, tournamentId, gameId);
    await waitFor(() => Date.now() > closesAt + 1000 + 3000, 'an outage past the grace');
    // The runner gets the store back first; the votes consumer, on its own backoff, after.
    faults.restore();
    await waitFor(async () => {
      const state = await engine.app.live.state(tournamentId);
      const closing = state?.phase === 'voting' || state?.phase === 'voting_ended';
      return !closing || state.votesEndOffset !== '';
    }, "the votes' end captured");
    faults.release();

    await waitFor(() => has('gameEnded'), 'the game to end');
    expectCydWonAlone(recorder);
  });
});

describe('a game whose state is gone from the store', () => {
  it('is reported as lost (a Redis restarted without its data), not dropped in silence', async () => {
    const infra = await startInfrastructure();
    const lines: string[] = [];
    const logger = createLogger({
      service: 'game-engine-test',
      level: 'warn',
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      }),
    });
    const app = createGameEngineModule(
      { ...testContext(infra.infrastructure, { logger, instanceId: 'engine-c' }) },
      gameEngineConfig({ GAME_RESULTS_SECONDS: '1', GAME_SWEEP_MS: '50' }),
    );
    const group = new ComponentGroup(logger, app.components);
    await group.start();
    const recorder = await recordGameEvents(infra.infrastructure.bus, 'lost-recorder');
    try {
      const { bus, store } = infra.infrastructure;
      const tournamentId = randomUUID();
      await publishTournamentNews(bus, tournamentId, 'created', 5);
      await waitFor(async () => (await app.live.state(tournamentId)) !== undefined, 'tournament');
      await app.players.join(verified('ann'), tournamentId);
      await publishTournamentNews(bus, tournamentId, 'live', 5);
      await waitFor(() => firstEvent(recorder, 'roundVotingStarted') !== undefined, 'round 1');

      const keys = gameKeys(tournamentId);
      await store.del(keys.state, keys.players, keys.alive, keys.lease, keys.offline);
      await store.sRem(ACTIVE_GAMES_KEY, tournamentId);

      await waitFor(
        () => lines.some((line) => line.includes('the game is gone from the live store')),
        'the loss reported',
      );
      expect(app.runners.runningHere()).toEqual([]);
    } finally {
      await recorder.stop();
      await group.stop();
      await infra.stop();
    }
  });
});

describe('the delay between attempts while the store is unreachable', () => {
  it('doubles from 200 ms up to a 5 s cap, each delay jittered down by at most half', () => {
    const top = (attempt: number) => retryDelayMs(attempt, () => 0.999_999);
    const bottom = (attempt: number) => retryDelayMs(attempt, () => 0);
    expect([1, 2, 3, 4, 5].map(top)).toEqual([200, 400, 800, 1600, 3200]);
    expect(top(6)).toBe(5000);
    expect(top(60)).toBe(5000);
    expect(bottom(1)).toBe(100);
    expect(bottom(60)).toBe(2500);
  });
});
