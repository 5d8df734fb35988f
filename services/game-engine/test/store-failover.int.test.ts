import { randomUUID } from 'node:crypto';
import { ComponentGroup } from '@underdog/kit';
import { createMemoryInfrastructure, topics, type Infrastructure } from '@underdog/platform';
import type { GameEvent } from '@underdog/proto';
import { createRedisStore, type LiveStore } from '@underdog/store';
import { startRedisSentinelGroup, type RedisSentinelGroup } from '@underdog/harness';
import {
  publishTournamentNews,
  recordGameEvents,
  silentLogger,
  startEngine,
  verified,
  voteMessage,
  waitFor,
  type TestEngine,
} from './support';

/**
 * The engine on a replicated Redis of the test's own (a primary, two replicas, three Sentinels):
 * the primary is killed mid-round; the Sentinels promote a replica and the game goes on there,
 * from the state it had replicated. Kafka and MongoDB are the in-memory adapters.
 */
describe('a game whose Redis primary is killed mid-round (Sentinel)', () => {
  let group: RedisSentinelGroup;
  let store: LiveStore;
  let memory: Infrastructure;
  let infraGroup: ComponentGroup;
  let engine: TestEngine;
  let recorder: Awaited<ReturnType<typeof recordGameEvents>>;

  beforeAll(async () => {
    group = await startRedisSentinelGroup({ replicas: 2, sentinels: 3 });
    store = await createRedisStore({
      url: 'redis://127.0.0.1:1/0',
      sentinel: { sentinels: group.sentinels, name: group.name },
    });
    memory = createMemoryInfrastructure(silentLogger);
    infraGroup = new ComponentGroup(silentLogger, memory.components);
    await infraGroup.start();
    engine = await startEngine(
      { bus: memory.bus, documents: memory.documents, store, components: [] },
      `engine-${randomUUID()}`,
    );
    recorder = await recordGameEvents(memory.bus, 'failover-recorder');
  }, 60_000);

  afterAll(async () => {
    await recorder?.stop();
    await engine?.group.stop();
    await store?.close();
    await infraGroup?.stop();
    await group?.stop();
  });

  const eventOf = (kind: NonNullable<GameEvent['kind']['case']>) =>
    recorder.events.find((event) => event.kind.case === kind);

  it('goes on through the promoted replica and plays the game to its end', async () => {
    const { bus } = memory;
    const tournamentId = randomUUID();
    await publishTournamentNews(bus, tournamentId, 'created', 3);
    await waitFor(
      async () => (await engine.app.live.state(tournamentId)) !== undefined,
      'tournament',
    );
    for (const user of ['ann', 'bob', 'cyd']) {
      await engine.app.players.join(verified(user), tournamentId);
    }
    await publishTournamentNews(bus, tournamentId, 'live', 3);
    await waitFor(() => eventOf('roundVotingStarted') !== undefined, 'round 1');
    const gameId = eventOf('gameStarted')!.gameId;
    const vote = (userId: string, position: number) =>
      voteMessage({
        tournamentId,
        gameId,
        voteId: randomUUID(),
        userId,
        roundNumber: 1,
        imageId: `round-1-image-${position}`,
      });
    await bus.publish(topics.gameVotes.name, [vote('ann', 1), vote('bob', 1), vote('cyd', 2)]);
    await waitFor(
      async () => (await engine.app.live.state(tournamentId))?.totalVotes === 3,
      'the votes counted',
    );
    // Replication is asynchronous: the kill comes once the replicas have the votes.
    await group.replicated();
    const killed = await group.killPrimary();

    await waitFor(() => eventOf('gameEnded') !== undefined, 'the game to end', 45_000);
    expect(await group.primaryNow()).not.toBe(killed);
    const results = eventOf('roundResults')!.kind.value as { winningImageIds: string[] };
    expect(results.winningImageIds).toEqual(['round-1-image-2']);
    expect(eventOf('gameEnded')!.kind.value).toMatchObject({ winnerUserId: 'cyd' });
  }, 90_000);
});
