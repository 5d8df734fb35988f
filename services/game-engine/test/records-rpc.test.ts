import { createMemoryDocumentStore } from '@underdog/documents';
import {
  ActorSchema,
  GameService,
  create,
  timestampDate,
  timestampFromDate,
} from '@underdog/proto';
import { createClient, createInProcessTransport } from '@underdog/rpc';
import { failureOf } from '@underdog/test-support';
import { createGameReads, createGameRecords } from '../src/persistence';
import { recordsRpc } from '../src/records-rpc';

const T0 = new Date('2030-01-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const admin = create(ActorSchema, { userId: 'admin-1', role: 'admin', isEmailVerified: true });
const user = create(ActorSchema, { userId: 'user-1', role: 'user', isEmailVerified: true });
const visitor = create(ActorSchema, {});

describe('GameService reads of the records', () => {
  const store = createMemoryDocumentStore();
  const records = createGameRecords(store);
  const client = createClient(
    GameService,
    createInProcessTransport((router) =>
      router.service(GameService, recordsRpc(createGameReads(store))),
    ),
  );

  beforeAll(async () => {
    await store.init();
    const players = ['ann', 'ben', 'cat'].map((name, index) => ({
      userId: `user-${name}`,
      username: name,
      isOfflinePlayer: index === 2,
      joinedAt: at(index),
    }));
    await records.gameStarted({
      gameId: 'game-1',
      tournament: { id: 't-1', title: 'Friday Cup', prize: '$5,000', startAt: T0 },
      totalRounds: 17,
      roundTimeSeconds: 15,
      startedAt: T0,
      participants: players,
    });
    await records.roundResolved({
      gameId: 'game-1',
      roundNumber: 1,
      images: [0, 1, 2, 3].map((m) => ({
        id: `round-1-image-${m}`,
        url: `/img/${m}.jpg`,
        alt: `Image ${m}`,
      })),
      timeLimit: 15,
      startedAt: at(10),
      endedAt: at(25),
      votes: [
        {
          userId: 'user-ann',
          username: 'ann',
          imageId: 'round-1-image-1',
          votedAt: at(11),
          isOfflinePlayer: false,
          isWinningVote: true,
        },
        {
          userId: 'user-ben',
          username: 'ben',
          imageId: 'round-1-image-0',
          votedAt: at(12),
          isOfflinePlayer: false,
          isWinningVote: false,
        },
        {
          userId: 'user-cat',
          username: 'cat',
          imageId: 'round-1-image-0',
          votedAt: at(10),
          isOfflinePlayer: true,
          isWinningVote: false,
        },
      ],
      eliminated: [{ userId: 'user-ben' }, { userId: 'user-cat' }],
      results: [
        { imageId: 'round-1-image-0', votes: 2, percentage: 67, isWinner: false },
        { imageId: 'round-1-image-1', votes: 1, percentage: 33, isWinner: true },
        { imageId: 'round-1-image-2', votes: 0, percentage: 0, isWinner: false },
        { imageId: 'round-1-image-3', votes: 0, percentage: 0, isWinner: false },
      ],
    });
    await records.gameEnded({
      gameId: 'game-1',
      endedAt: at(40),
      winner: { userId: 'user-ann', username: 'ann', prize: '$5,000' },
    });
  });

  it('gives anyone the statistics of a played game', async () => {
    const { statistics } = await client.getTournamentStatistics({
      actor: visitor,
      tournamentId: 't-1',
    });
    expect(statistics).toMatchObject({
      gameId: 'game-1',
      finished: true,
      roundsPlayed: 1,
      participantCount: 3,
      onlineParticipantCount: 2,
      offlineParticipantCount: 1,
      winnerUsername: 'ann',
    });
    expect(
      statistics?.participants.map((p) => [p.username, p.isEliminated, p.eliminatedInRound]),
    ).toEqual([
      ['ann', false, 0],
      ['ben', true, 1],
      ['cat', true, 1],
    ]);
  });

  it('answers without statistics for a tournament that has no game', async () => {
    const answer = await client.getTournamentStatistics({ actor: visitor, tournamentId: 't-2' });
    expect(answer.statistics).toBeUndefined();
  });

  it('lists the history and the details for an admin', async () => {
    const { items } = await client.listTournamentHistory({ actor: admin });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      gameId: 'game-1',
      tournament: {
        id: 't-1',
        title: 'Friday Cup',
        prize: '$5,000',
        startAt: timestampFromDate(T0),
      },
      winnerUsername: 'ann',
      totalPlayers: 3,
      roundsPlayed: 1,
    });
    expect(timestampDate(items[0]!.endedAt!)).toEqual(at(40));

    const { details } = await client.getTournamentDetails({ actor: admin, tournamentId: 't-1' });
    expect(details?.rounds).toHaveLength(1);
    expect(details?.rounds[0]?.votes.map((v) => [v.username, v.imageId])).toEqual([
      ['cat', 'round-1-image-0'],
      ['ann', 'round-1-image-1'],
      ['ben', 'round-1-image-0'],
    ]);
    expect(details?.rounds[0]?.eliminatedPlayers).toEqual([
      expect.objectContaining({ username: 'ben', isOfflinePlayer: false }),
      expect.objectContaining({ username: 'cat', isOfflinePlayer: true }),
    ]);
  });

  it('refuses history and details to a visitor (401) and to a user (403)', async () => {
    for (const call of [
      (actor: typeof admin) => client.listTournamentHistory({ actor }),
      (actor: typeof admin) => client.getTournamentDetails({ actor, tournamentId: 't-1' }),
    ]) {
      expect(await failureOf(call(visitor))).toMatchObject({ code: 'UNAUTHENTICATED' });
      expect(await failureOf(call(user))).toMatchObject({
        code: 'FORBIDDEN',
        reason: 'ADMIN_ONLY',
      });
    }
  });
});
