import { ApolloClient, ApolloLink, InMemoryCache, Observable } from '@apollo/client';
import { MeDocument, type MeQuery } from '../src/gql/operations';
import { followSession, sessionKeyOf } from '../src/app/socketSession';

type Me = NonNullable<MeQuery['me']>;

// As the server answers it: with its __typename, so the cache keeps the user as an entity.
const player = (overrides: Partial<Me> = {}): Me =>
  ({
    __typename: 'User',
    id: 'user-1',
    username: 'ada',
    email: 'ada@example.com',
    displayName: 'Ada',
    role: 'player' as Me['role'],
    isEmailVerified: true,
    createdAt: null,
    gamesPlayed: 0,
    wins: 0,
    totalPrizes: 0,
    roundsWon: 0,
    totalRoundsPlayed: 0,
    longestWinStreak: 0,
    currentWinStreak: 0,
    biggestTournamentSize: 0,
    firstWinDate: null,
    ...overrides,
  }) as Me;

/** Issue 34: the app's socket speaks for the user the page shows. */
describe('the socket following the page session', () => {
  function following() {
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      link: new ApolloLink(() => new Observable((observer) => observer.complete())),
    });
    const reopened = { count: 0 };
    followSession(client, () => {
      reopened.count += 1;
    });
    const show = (me: Me | null) => client.writeQuery({ query: MeDocument, data: { me } });
    return { client, reopened, show };
  }

  it('keeps the socket the page opened with when the first `me` arrives', () => {
    const { reopened, show } = following();
    show(null);
    expect(reopened.count).toBe(0);
  });

  it('reopens it when a visitor registers, then again when they verify', () => {
    const { reopened, show } = following();
    show(null);
    show(player({ isEmailVerified: false }));
    expect(reopened.count).toBe(1);
    show(player({ isEmailVerified: true }));
    expect(reopened.count).toBe(2);
  });

  it('reopens it on log in, on log out (a cleared store, then no user), and on another user', async () => {
    const { client, reopened, show } = following();
    show(null);
    show(player());
    expect(reopened.count).toBe(1);
    await client.clearStore(); // which drops every watch of the cache
    show(null);
    expect(reopened.count).toBe(2);
    show(player({ id: 'user-2', username: 'bob' }));
    expect(reopened.count).toBe(3);
  });

  it('leaves it alone when only the profile changes', () => {
    const { reopened, show } = following();
    show(player());
    show(player({ displayName: 'Ada L.', wins: 3 }));
    expect(reopened.count).toBe(0);
  });

  it('tells users, roles and verification apart', () => {
    expect(sessionKeyOf(null)).toBe('visitor');
    expect(sessionKeyOf(player())).not.toBe(sessionKeyOf(player({ id: 'user-2' })));
    expect(sessionKeyOf(player())).not.toBe(sessionKeyOf(player({ role: 'admin' as Me['role'] })));
    expect(sessionKeyOf(player())).not.toBe(sessionKeyOf(player({ isEmailVerified: false })));
  });
});
