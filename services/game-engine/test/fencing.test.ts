import { createMemoryStore } from '@underdog/store';
import { testClock } from '@underdog/test-support';
import { LiveGames } from '../src/adapters/live-games';

describe('a game lease with a fencing token', () => {
  it('lets one replica act at a time and refuses the writes of one whose lease was taken over', async () => {
    // The store's clock is the test's: the lease lapses when the test moves it past the TTL.
    const clock = testClock();
    const store = createMemoryStore({ now: () => clock.now().getTime() });
    const live = new LiveGames(store);
    await live.recordTournament({
      id: 't1',
      title: 'Cup',
      prize: undefined,
      startAt: new Date(),
      roundTimeSeconds: 5,
    });
    await live.createGame('t1', 'game-1', Date.now(), 17);

    const first = await live.acquireLease('t1', 'replica-a', 60);
    expect(first).toBeGreaterThan(0);
    // Held: another replica cannot take it, the holder renews with the same token.
    expect(await live.acquireLease('t1', 'replica-b', 60)).toBe(0);
    expect(await live.acquireLease('t1', 'replica-a', 60)).toBe(first);
    expect(
      await live.advance(
        't1',
        first,
        { phase: 'waiting', round: 0 },
        { phase: 'voting', round: 1 },
      ),
    ).toBe('OK');

    // replica-a freezes (no renewal); its lease expires and replica-b takes the game over.
    clock.advance(59);
    expect(await live.acquireLease('t1', 'replica-b', 60)).toBe(0);
    clock.advance(1);
    const second = await live.acquireLease('t1', 'replica-b', 60);
    expect(second).toBeGreaterThan(first);

    // replica-a wakes up: its writes are refused, the state is replica-b's.
    expect(
      await live.advance('t1', first, { phase: 'voting', round: 1 }, { phase: 'voting_ended' }),
    ).toBe('FENCED');
    expect(await live.acquireLease('t1', 'replica-a', 60)).toBe(0);
    expect(
      await live.advance('t1', second, { phase: 'voting', round: 1 }, { phase: 'voting_ended' }),
    ).toBe('OK');
    // A step already taken is not taken twice (another round cannot be opened from it).
    expect(
      await live.advance('t1', second, { phase: 'voting', round: 1 }, { phase: 'voting_ended' }),
    ).toBe('STALE');
    expect((await live.state('t1'))?.phase).toBe('voting_ended');
    await store.close();
  });
});
