import type { DocumentStore } from '@underdog/documents';
import { appliedGamesKept, usersCollection, UsersRepository } from '../src/adapters/users';
import { withGameOutcome, type GameOutcomeFacts } from '../src/domain/statistics';
import { emptyStatistics, type User } from '../src/domain/user';

let sequence = 0;

function storedUser(): User {
  sequence += 1;
  const name = `player${Date.now().toString(36)}${sequence}`;
  return {
    id: `user-${name}`,
    username: name,
    email: `${name}@example.com`,
    displayName: name,
    passwordHash: 'not-a-real-hash',
    role: 'user',
    isEmailVerified: true,
    emailVerificationSentAt: null,
    statistics: emptyStatistics(),
    createdAt: new Date('2030-01-01T00:00:00.000Z'),
  };
}

const outcome = (gameId: string, won = false): GameOutcomeFacts => ({
  gameId,
  won,
  prizeAmount: won ? 500 : 0,
  roundsPlayed: 2,
  roundsWon: won ? 2 : 1,
  tournamentSize: 8,
  endedAt: new Date('2030-01-01T12:00:00.000Z'),
});

/** The exactly-once step of `player.outcomes`, on any document store. */
export function describeGameOutcomes(name: string, connect: () => Promise<DocumentStore>) {
  describe(`applying game outcomes to user statistics (${name})`, () => {
    let store: DocumentStore;
    let users: UsersRepository;

    beforeAll(async () => {
      store = await connect();
      users = new UsersRepository(store);
      await store.init();
    });
    afterAll(() => store.close());

    async function newUser(): Promise<User> {
      const user = storedUser();
      await store.collection(usersCollection).insertOne(user);
      return user;
    }
    const statisticsOf = async (userId: string) =>
      (await store.collection(usersCollection).findById(userId))?.statistics;
    const apply = (userId: string, facts: GameOutcomeFacts) =>
      users.applyGameOutcome(userId, facts.gameId, (statistics) =>
        withGameOutcome(statistics, facts),
      );

    it('applies a game once, however often its outcome is delivered', async () => {
      const user = await newUser();
      expect(await apply(user.id, outcome('game-a', true))).toBe('applied');
      expect(await apply(user.id, outcome('game-a', true))).toBe('already-applied');
      expect(await statisticsOf(user.id)).toMatchObject({
        gamesPlayed: 1,
        wins: 1,
        totalPrizes: 500,
        roundsWon: 2,
        totalRoundsPlayed: 2,
      });
    });

    it('applies a game once when its outcome is handled by racing consumers', async () => {
      const user = await newUser();
      const results = await Promise.all(
        Array.from({ length: 8 }, () => apply(user.id, outcome('game-race', true))),
      );
      expect(results.filter((result) => result === 'applied')).toHaveLength(1);
      expect(await statisticsOf(user.id)).toMatchObject({ gamesPlayed: 1, wins: 1 });
    });

    it('loses none of several games applied at once', async () => {
      const user = await newUser();
      const games = Array.from({ length: 6 }, (_, index) => outcome(`game-${index}`, index < 2));
      await Promise.all(games.map((facts) => apply(user.id, facts)));
      expect(await statisticsOf(user.id)).toMatchObject({
        gamesPlayed: 6,
        wins: 2,
        totalPrizes: 1000,
        totalRoundsPlayed: 12,
      });
    });

    it('says when the user does not exist', async () => {
      expect(await apply('user-nobody', outcome('game-x'))).toBe('no-such-user');
    });

    it(`remembers the last ${appliedGamesKept} games only`, async () => {
      const user = await newUser();
      const ids = Array.from({ length: appliedGamesKept + 1 }, (_, index) => `old-${index}`);
      await store
        .collection(usersCollection)
        .updateOne({ id: user.id }, { $set: { appliedGameIds: ids.slice(0, appliedGamesKept) } });
      await apply(user.id, outcome(ids[appliedGamesKept] ?? 'last'));
      const stored = await store.collection(usersCollection).findById(user.id);
      expect(stored?.appliedGameIds).toHaveLength(appliedGamesKept);
      expect(stored?.appliedGameIds?.at(-1)).toBe(`old-${appliedGamesKept}`);
      expect(stored?.appliedGameIds).not.toContain('old-0');
    });
  });
}
