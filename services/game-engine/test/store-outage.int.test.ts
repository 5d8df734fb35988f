import { randomUUID } from 'node:crypto';
import { createRedisStore, type LiveStore } from '@underdog/store';
import { testInfra } from '@underdog/harness';
import { startTcpProxy, type TcpProxy } from '@underdog/test-support';
import { waitFor } from './support';
import {
  expectCydWonAlone,
  firstEvent,
  playUntilVotesCounted,
  startEngineOnStore,
  type EngineOnStore,
} from './fault-support';

const OUTAGE_MS = 30_000;

/**
 * The engine on the harness's real Redis, reached through a TCP proxy the test cuts: the store
 * is unreachable for 30 s in the middle of a round (its deadline passes meanwhile), as when Redis
 * is restarted or its node fails over. Kafka and MongoDB are the in-memory adapters: the fault
 * under test is the live store's.
 */
describe('a game whose live store is unreachable for a while', () => {
  let proxy: TcpProxy;
  let store: LiveStore;
  let running: EngineOnStore;

  beforeAll(async () => {
    const redis = new URL(testInfra().redisUrl);
    proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port) });
    // Keys of its own on the harness's shared Redis: the engines of other test files (the stack's,
    // an e2e's) sweep `games:active` there and would take over this game while its lease lapses
    // in the outage; the votes' applied marks (`games:votes-applied:P`) are shared there too.
    store = await createRedisStore({
      url: `redis://127.0.0.1:${proxy.port}`,
      keyPrefix: `store-outage-${randomUUID()}:`,
    });
    running = await startEngineOnStore(store, 'outage-recorder', { GAME_LEASE_TTL_MS: '1000' });
  });

  afterAll(async () => {
    proxy.restore();
    await running.stop();
    await store.close();
    await proxy.close();
  });

  it('resumes the round where the store says it stands and plays the game to its end', async () => {
    const { engine, recorder } = running;
    const tournamentId = randomUUID();
    // A 10 s round: the votes are counted and the store cut well before its deadline even on a
    // loaded machine (with 3 s, CI once saw the round resolved before the cut).
    await playUntilVotesCounted(running, tournamentId, 10);

    proxy.cut();
    const cutAt = Date.now();
    // The round's deadline (10 s) passes while the store is away (30 s); nothing can be decided.
    await waitFor(() => Date.now() - cutAt >= OUTAGE_MS, 'the outage', OUTAGE_MS + 5_000);
    expect(firstEvent(recorder, 'roundResults')).toBeUndefined();
    proxy.restore();

    await waitFor(() => firstEvent(recorder, 'gameEnded') !== undefined, 'the game to end', 20_000);
    expectCydWonAlone(recorder);
    expect((await engine.app.live.state(tournamentId))?.phase).toBe('finished');
  }, 90_000);
});
