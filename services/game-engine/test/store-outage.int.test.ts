import { randomUUID } from 'node:crypto';
import { ComponentGroup } from '@underdog/kit';
import { createMemoryInfrastructure, topics, type Infrastructure } from '@underdog/platform';
import type { GameEvent } from '@underdog/proto';
import { createRedisStore, type LiveStore } from '@underdog/store';
import { testInfra } from '@underdog/harness';
import { startTcpProxy, type TcpProxy } from '@underdog/test-support';
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
  let memory: Infrastructure;
  let infraGroup: ComponentGroup;
  let engine: TestEngine;
  let recorder: Awaited<ReturnType<typeof recordGameEvents>>;

  beforeAll(async () => {
    const redis = new URL(testInfra().redisUrl);
    proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port) });
    store = await createRedisStore({ url: `redis://127.0.0.1:${proxy.port}` });
    memory = createMemoryInfrastructure(silentLogger);
    infraGroup = new ComponentGroup(silentLogger, memory.components);
    await infraGroup.start();
    const infrastructure: Infrastructure = {
      bus: memory.bus,
      documents: memory.documents,
      store,
      components: [],
    };
    engine = await startEngine(infrastructure, `engine-${randomUUID()}`, {
      GAME_LEASE_TTL_MS: '1000',
    });
    recorder = await recordGameEvents(memory.bus, 'outage-recorder');
  });

  afterAll(async () => {
    proxy.restore();
    await recorder.stop();
    await engine.group.stop();
    await store.close();
    await infraGroup.stop();
    await proxy.close();
  });

  const eventOf = (kind: NonNullable<GameEvent['kind']['case']>) =>
    recorder.events.find((event) => event.kind.case === kind);

  it('resumes the round where the store says it stands and plays the game to its end', async () => {
    const { bus } = memory;
    const tournamentId = randomUUID();
    await publishTournamentNews(bus, tournamentId, 'created', 3);
    await waitFor(
      async () => (await engine.app.live.state(tournamentId)) !== undefined,
      'tournament',
    );
    for (const user of ['ann', 'bob', 'cyd'])
      await engine.app.players.join(verified(user), tournamentId);
    await publishTournamentNews(bus, tournamentId, 'live', 3);
    await waitFor(() => eventOf('roundVotingStarted') !== undefined, 'round 1');
    const gameId = eventOf('gameStarted')!.gameId;
    // ann and bob pick image 1, cyd image 2: image 2 is the least popular, cyd wins alone.
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

    proxy.cut();
    const cutAt = Date.now();
    // The round's deadline (3 s) passes while the store is away; nothing can be decided.
    await waitFor(() => Date.now() - cutAt >= OUTAGE_MS, 'the outage', OUTAGE_MS + 5_000);
    expect(eventOf('roundResults')).toBeUndefined();
    proxy.restore();

    await waitFor(() => eventOf('gameEnded') !== undefined, 'the game to end', 20_000);
    const results = eventOf('roundResults')!.kind.value as { winningImageIds: string[] };
    expect(results.winningImageIds).toEqual(['round-1-image-2']);
    expect(eventOf('gameEnded')!.kind.value).toMatchObject({ winnerUserId: 'cyd' });
    expect((await engine.app.live.state(tournamentId))?.phase).toBe('finished');
  }, 90_000);
});
