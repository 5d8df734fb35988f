import { randomUUID } from 'node:crypto';
import { createMetricsRegistry } from '@underdog/kit';
import { allSlotKeys, gameKeys, slotOf, votesProgressKey } from '@underdog/live-game';
import { topics } from '@underdog/platform';
import { createMemoryStore, type LiveStore } from '@underdog/store';
import { LiveGames } from '../src/adapters/live-games';
import { VoteBatches } from '../src/adapters/vote-batches';
import { VotesApplier } from '../src/application/votes';
import { engineMetrics } from '../src/metrics';
import { silentLogger, voteMessage } from './support';

/**
 * The votes consumer applies each vote in its player's vote slot (docs/adr/0012), the slot the
 * gateway admitted and settles it in, whatever the message's key: a vote applied in another
 * slot would leave its id where the gateway's settlement does not look, and a resend could be
 * acknowledged and then refused.
 */
describe.each([1, 4])('the votes consumer with %i vote slot(s)', (slots) => {
  let store: LiveStore;
  let applier: VotesApplier;
  const tournamentId = 't-slots';
  const users = Array.from({ length: 24 }, (_, i) => `user-${i}`);

  beforeEach(async () => {
    store = createMemoryStore();
    const live = new LiveGames(store);
    applier = new VotesApplier(
      live,
      new VoteBatches(store),
      engineMetrics(createMetricsRegistry(`slots-${randomUUID()}`)),
      silentLogger,
    );
    const keys = gameKeys(tournamentId);
    await store.hSet(keys.state, { tournamentStatus: 'upcoming' });
    await live.createGame(tournamentId, 'game-1', Date.now(), 17, slots);
    await store.hSet(keys.state, {
      phase: 'voting',
      round: '1',
      votingEndsAt: String(Date.now() + 60_000),
    });
    await store.sAdd(keys.alive, ...users);
  });

  afterEach(() => store.close());

  it("applies each vote in its player's slot, raising the partition's mark past the batch", async () => {
    const batch = users.map((userId, i) => {
      const message = voteMessage({
        tournamentId,
        gameId: 'game-1',
        voteId: `vote-${userId}`,
        userId,
        roundNumber: 1,
        imageId: `round-1-image-${i % 4}`,
      });
      return {
        topic: topics.gameVotes.name,
        partition: 0,
        offset: String(i),
        key: message.key,
        value: message.value,
        headers: message.headers ?? {},
        timestamp: Date.now(),
      };
    });
    await applier.handleBatch(batch);

    for (const [slot, keys] of allSlotKeys(tournamentId, slots).entries()) {
      const voters = Object.keys(await store.hGetAll(keys.ballots(1))).sort();
      expect(voters).toEqual(users.filter((user) => slotOf(user, slots) === slot).sort());
      expect((await store.sMembers(keys.voteIds(1))).sort()).toEqual(
        voters.map((user) => `vote-${user}`).sort(),
      );
    }
    expect(await store.hGet(gameKeys(tournamentId).state, 'totalVotes')).toBe(String(users.length));
    expect(await store.get(votesProgressKey(0))).toBe(String(users.length));
  });
});
