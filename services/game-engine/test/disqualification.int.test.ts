import { randomUUID } from 'node:crypto';
import { ComponentGroup } from '@underdog/kit';
import { createMongoDocumentStore, type DocumentStore } from '@underdog/documents';
import { testInfra } from '@underdog/harness';
import { createMemoryInfrastructure, topics, type Infrastructure } from '@underdog/platform';
import type { GameEvent } from '@underdog/proto';
import { actors } from '@underdog/test-support';
import { createRedisStore, type LiveStore } from '@underdog/store';
import { createGameReads } from '../src/persistence';
import {
  publishRoundOneVotes,
  publishTournamentNews,
  recordGameEvents,
  silentLogger,
  advancedFrom,
  startEngine,
  verified,
  voteMessage,
  waitFor,
  type TestEngine,
} from './support';

/**
 * Issue 28 on the real servers: the live store is the harness's Redis (the mark is a Lua script
 * there), the records FerretDB over the MongoDB wire; Kafka is the in-memory bus. A participant
 * disqualified during round 2 goes out at the end of round 2, whatever they voted, and the
 * records and statistics say so.
 */
describe('a disqualification during round 2 (Redis and FerretDB)', () => {
  let store: LiveStore;
  let documents: DocumentStore;
  let memory: ComponentGroup;
  let infrastructure: Infrastructure;
  let engine: TestEngine;
  let recorder: Awaited<ReturnType<typeof recordGameEvents>>;

  beforeAll(async () => {
    // Keys of its own on the shared Redis (other files' engines sweep `games:active` there).
    store = await createRedisStore({
      url: testInfra().redisUrl,
      keyPrefix: `game-dq-${randomUUID()}:`,
    });
    documents = await createMongoDocumentStore({
      url: testInfra().mongoUrl,
      dbName: `game_dq_${randomUUID().replace(/-/g, '').slice(0, 12)}`,
    });
    const inMemory = createMemoryInfrastructure(silentLogger);
    memory = new ComponentGroup(silentLogger, inMemory.components);
    await memory.start();
    infrastructure = { bus: inMemory.bus, documents, store, components: [] };
    engine = await startEngine(infrastructure, `engine-${randomUUID()}`, {
      GAME_RECORDS_DELAY_MS: '0',
    });
    recorder = await recordGameEvents(inMemory.bus, 'dq-int-recorder');
  }, 60_000);

  afterAll(async () => {
    await recorder?.stop();
    await engine?.group.stop();
    await memory?.stop();
    await documents?.close();
    await store?.close();
  });

  const eventsOf = <C extends NonNullable<GameEvent['kind']['case']>>(kind: C) =>
    recorder.events
      .filter((event) => event.kind.case === kind)
      .map((event) => event.kind.value as Extract<GameEvent['kind'], { case: C }>['value']);

  it('takes effect at the end of round 2 and is in the records and the statistics', async () => {
    const { bus } = infrastructure;
    const { app } = engine;
    const tournamentId = randomUUID();
    const users = ['ann', 'bob', 'cyd', 'dan', 'eve', 'fay'];
    await publishTournamentNews(bus, tournamentId, 'created', 3);
    await waitFor(async () => (await app.live.state(tournamentId)) !== undefined, 'tournament');
    for (const user of users) await app.players.join(verified(user), tournamentId);
    await publishTournamentNews(bus, tournamentId, 'live', 3);
    await waitFor(() => eventsOf('roundVotingStarted').length > 0, 'round 1');
    const gameId = recorder.events.find((event) => event.kind.case === 'gameStarted')!.gameId;
    // Round 1: eve and fay alone on image 1, the least popular: they go on to round 2.
    await publishRoundOneVotes(bus, tournamentId, gameId, [
      ['ann', 0],
      ['bob', 0],
      ['cyd', 0],
      ['dan', 0],
      ['eve', 1],
      ['fay', 1],
    ]);
    await waitFor(() => eventsOf('roundVotingStarted').length > 1, 'round 2', 20_000);

    const answer = await app.disqualifications.disqualify(actors.admin(), {
      tournamentId,
      userId: 'eve',
      reason: 'shares a device ring',
    });
    expect(answer).toEqual({ duringGame: true, effectiveRound: 2, winnerUsername: undefined });
    // Round 2: eve and fay on images of one vote each, both least popular; eve is out anyway.
    await bus.publish(
      topics.gameVotes.name,
      (
        [
          ['eve', 0],
          ['fay', 1],
        ] as const
      ).map(([userId, position]) =>
        voteMessage({
          tournamentId,
          gameId,
          voteId: randomUUID(),
          userId,
          roundNumber: 2,
          imageId: `round-2-image-${position}`,
        }),
      ),
    );
    await waitFor(() => eventsOf('gameEnded').length > 0, 'game_ended', 20_000);
    expect(eventsOf('participantDisqualified')).toEqual([
      expect.objectContaining({ userId: 'eve', roundNumber: 2, reason: 'shares a device ring' }),
    ]);
    const round2 = eventsOf('roundResults').find((results) => results.roundNumber === 2)!;
    expect(round2.winningImageIds).toEqual(['round-2-image-0', 'round-2-image-1']);
    await expect(advancedFrom(app.live, tournamentId, 2)).resolves.toEqual(['fay']);
    expect(eventsOf('gameEnded')[0]).toMatchObject({
      winnerUserId: 'fay',
      decidedBy: 'last_standing',
    });

    const reads = createGameReads(documents);
    await waitFor(
      async () => (await reads.statistics(tournamentId))?.status === 'finished',
      'the finished records',
      20_000,
    );
    const statistics = (await reads.statistics(tournamentId))!;
    expect(statistics.disqualifiedCount).toBe(1);
    expect(statistics.winner).toEqual({ username: 'fay' });
    expect(statistics.participants.find((p) => p.username === 'eve')).toMatchObject({
      isEliminated: true,
      eliminatedInRound: 2,
      disqualificationReason: 'shares a device ring',
    });
    const details = (await reads.details(tournamentId))!;
    expect(details.rounds.find((round) => round.roundNumber === 2)?.eliminatedPlayers).toEqual([
      { username: 'eve', isOfflinePlayer: false, disqualificationReason: 'shares a device ring' },
    ]);
  }, 60_000);
});
