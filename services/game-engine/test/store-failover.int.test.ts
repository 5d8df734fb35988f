import { randomUUID } from 'node:crypto';
import { createRedisStore, type LiveStore } from '@underdog/store';
import { startRedisSentinelGroup, type RedisSentinelGroup } from '@underdog/harness';
import { waitFor } from './support';
import {
  expectCydWonAlone,
  firstEvent,
  playUntilVotesCounted,
  startEngineOnStore,
  type EngineOnStore,
} from './fault-support';

/**
 * The engine on a replicated Redis of the test's own (a primary, two replicas, three Sentinels):
 * the primary is killed mid-round; the Sentinels promote a replica and the game goes on there,
 * from the state it had replicated. Kafka and MongoDB are the in-memory adapters.
 */
describe('a game whose Redis primary is killed mid-round (Sentinel)', () => {
  let group: RedisSentinelGroup;
  let store: LiveStore;
  let running: EngineOnStore;

  beforeAll(async () => {
    group = await startRedisSentinelGroup({ replicas: 2, sentinels: 3 });
    store = await createRedisStore({
      url: 'redis://127.0.0.1:1/0',
      sentinel: { sentinels: group.sentinels, name: group.name },
    });
    running = await startEngineOnStore(store, 'failover-recorder');
  }, 60_000);

  afterAll(async () => {
    await running?.stop();
    await store?.close();
    await group?.stop();
  });

  it('goes on through the promoted replica and plays the game to its end', async () => {
    const { recorder } = running;
    await playUntilVotesCounted(running, randomUUID());
    // Replication is asynchronous: the kill comes once the replicas have the votes.
    await group.replicated();
    const killed = await group.killPrimary();

    await waitFor(() => firstEvent(recorder, 'gameEnded') !== undefined, 'the game to end', 45_000);
    expect(await group.primaryNow()).not.toBe(killed);
    expectCydWonAlone(recorder);
  }, 90_000);
});
