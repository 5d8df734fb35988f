import { topics } from '@underdog/platform';
import { PlayerOutcomeEventSchema, create, encodeEvent, timestampFromDate } from '@underdog/proto';
import { waitFor } from '@underdog/test-support';
import { usersCollection } from '../src/adapters/users';
import { newPlayer, startAuth, type TestAuth } from './support';

const ended = new Date('2030-01-01T13:00:00.000Z');

function outcomeMessage(userId: string, gameId: string, won: boolean) {
  const event = create(PlayerOutcomeEventSchema, {
    userId,
    kind: {
      case: 'gameOutcome',
      value: {
        gameId,
        tournamentId: `tournament-of-${gameId}`,
        won,
        prizeAmount: won ? 5000n : 0n,
        roundsPlayed: 4,
        roundsWon: won ? 4 : 3,
        tournamentSize: 200,
        eliminatedInRound: won ? 0 : 4,
        endedAt: timestampFromDate(ended),
      },
    },
  });
  return encodeEvent(PlayerOutcomeEventSchema, event, { key: userId, id: `${gameId}:${userId}` });
}

describe('user statistics from player.outcomes', () => {
  let auth: TestAuth;
  beforeEach(async () => {
    auth = await startAuth();
  });
  afterEach(() => auth.stop());

  it('counts each game once even when its outcome is delivered twice', async () => {
    const { user, session } = await auth.client.register({ ...newPlayer(), deviceId: 'device-1' });
    const userId = user?.id ?? '';
    const { bus, documents } = auth.infrastructure;
    const users = documents.collection(usersCollection);
    await bus.publish(topics.playerOutcomes.name, [
      outcomeMessage(userId, 'game-1', true),
      outcomeMessage(userId, 'game-1', true),
      outcomeMessage(userId, 'game-2', false),
    ]);
    await bus.publish(topics.playerOutcomes.name, [outcomeMessage(userId, 'game-2', false)]);
    // A marker game after the repeats: once it is counted, everything before it was handled.
    await bus.publish(topics.playerOutcomes.name, [outcomeMessage(userId, 'game-3', true)]);
    await waitFor(
      async () => (await users.findById(userId))?.appliedGameIds?.includes('game-3') ?? false,
      'the third game',
    );

    const { user: seen } = await auth.client.getSession({ sessionId: session?.id ?? '' });
    expect(seen?.statistics).toMatchObject({
      gamesPlayed: 3,
      wins: 2,
      totalPrizes: 10_000,
      roundsWon: 11,
      totalRoundsPlayed: 12,
      currentWinStreak: 1,
      longestWinStreak: 1,
      biggestTournamentSize: 200,
    });
    expect(seen?.statistics?.firstWinDate).toEqual(timestampFromDate(ended));
  });
});
