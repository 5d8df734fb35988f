import { randomUUID } from 'node:crypto';
import { ComponentGroup } from '@underdog/kit';
import { createMemoryInfrastructure, topics, type Infrastructure } from '@underdog/platform';
import type { GameEvent } from '@underdog/proto';
import { createRedisStore, type LiveStore } from '@underdog/store';
import { startRestartableRedis, type RestartableRedis } from '@underdog/harness';
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

const DOWN_MS = 5_000;

/**
 * The measured failure of issue 29: Redis `kill -9`ed mid-round and started again 5 s later. With
 * its AOF (here fsynced on every write) it comes back with the game, which goes on to its end.
 * Kafka and MongoDB are the in-memory adapters.
 */
describe('a game whose Redis is killed and started again (AOF)', () => {
  let redis: RestartableRedis;
  let store: LiveStore;
  let memory: Infrastructure;
  let infraGroup: ComponentGroup;
  let engine: TestEngine;
  let recorder: Awaited<ReturnType<typeof recordGameEvents>>;

  beforeAll(async () => {
    redis = await startRestartableRedis({ appendfsync: 'always' });
    store = await createRedisStore({ url: redis.url });
    memory = createMemoryInfrastructure(silentLogger);
    infraGroup = new ComponentGroup(silentLogger, memory.components);
    await infraGroup.start();
    engine = await startEngine(
      { bus: memory.bus, documents: memory.documents, store, components: [] },
      `engine-${randomUUID()}`,
    );
    recorder = await recordGameEvents(memory.bus, 'restart-recorder');
  }, 60_000);

  afterAll(async () => {
    await recorder?.stop();
    await engine?.group.stop();
    await store?.close();
    await infraGroup?.stop();
    await redis?.stop();
  });

  const eventOf = (kind: NonNullable<GameEvent['kind']['case']>) =>
    recorder.events.find((event) => event.kind.case === kind);

  it('resumes the game where the AOF says it stands and plays it to its end', async () => {
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

    redis.kill();
    const killedAt = Date.now();
    await waitFor(() => Date.now() - killedAt >= DOWN_MS, 'Redis to stay down', DOWN_MS + 5_000);
    expect(eventOf('roundResults')).toBeUndefined();
    await redis.start();

    await waitFor(() => eventOf('gameEnded') !== undefined, 'the game to end', 30_000);
    const results = eventOf('roundResults')!.kind.value as { winningImageIds: string[] };
    expect(results.winningImageIds).toEqual(['round-1-image-2']);
    expect(eventOf('gameEnded')!.kind.value).toMatchObject({ winnerUserId: 'cyd' });
  }, 90_000);
});
