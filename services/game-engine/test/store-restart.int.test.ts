import { randomUUID } from 'node:crypto';
import { createRedisStore, type LiveStore } from '@underdog/store';
import { startRestartableRedis, type RestartableRedis } from '@underdog/harness';
import { waitFor } from './support';
import {
  expectCydWonAlone,
  firstEvent,
  playUntilVotesCounted,
  startEngineOnStore,
  type EngineOnStore,
} from './fault-support';

const DOWN_MS = 5_000;

/**
 * The measured failure of issue 29: Redis `kill -9`ed mid-round and started again 5 s later. With
 * its AOF (here fsynced on every write) it comes back with the game, which goes on to its end.
 * Kafka and MongoDB are the in-memory adapters.
 */
describe('a game whose Redis is killed and started again (AOF)', () => {
  let redis: RestartableRedis;
  let store: LiveStore;
  let running: EngineOnStore;

  beforeAll(async () => {
    redis = await startRestartableRedis({ appendfsync: 'always' });
    store = await createRedisStore({ url: redis.url });
    running = await startEngineOnStore(store, 'restart-recorder');
  }, 60_000);

  afterAll(async () => {
    await running?.stop();
    await store?.close();
    await redis?.stop();
  });

  it('resumes the game where the AOF says it stands and plays it to its end', async () => {
    const { recorder } = running;
    await playUntilVotesCounted(running, randomUUID());

    redis.kill();
    const killedAt = Date.now();
    await waitFor(() => Date.now() - killedAt >= DOWN_MS, 'Redis to stay down', DOWN_MS + 5_000);
    expect(firstEvent(recorder, 'roundResults')).toBeUndefined();
    await redis.start();

    await waitFor(() => firstEvent(recorder, 'gameEnded') !== undefined, 'the game to end', 30_000);
    expectCydWonAlone(recorder);
  }, 90_000);
});
