import { randomUUID } from 'node:crypto';
import type { BusMessage } from '@underdog/bus';
import { createMetricsRegistry } from '@underdog/kit';
import { gameKeys, votesProgressKey } from '@underdog/live-game';
import { topics } from '@underdog/platform';
import { createMemoryStore, type LiveStore } from '@underdog/store';
import { LiveGames } from '../src/adapters/live-games';
import { VotesApplier } from '../src/application/votes';
import { engineMetrics } from '../src/metrics';
import { silentLogger, voteMessage } from './support';

/**
 * The applied mark of a `game.votes` partition is raised by the step that applies each vote, and
 * only past a vote whose step succeeded: the votes consumer resumes from it after a failover, so
 * a mark ahead of an unapplied vote would lose that vote for good.
 */
describe('the applied mark of a votes partition', () => {
  const tournamentId = 't-mark';
  const keys = gameKeys(tournamentId);
  let store: LiveStore;
  let failing: string | undefined;
  let applier: VotesApplier;

  beforeEach(async () => {
    store = createMemoryStore();
    failing = undefined;
    // The store refuses one vote's step (a connection lost mid-batch, a script error).
    const flaky: LiveStore = Object.create(store) as LiveStore;
    flaky.run = (script, scriptKeys, args) =>
      script.name === 'underdogApplyVote' && args[1] === failing
        ? Promise.reject(new Error('connection lost'))
        : store.run(script, scriptKeys, args);
    applier = new VotesApplier(
      new LiveGames(flaky),
      engineMetrics(createMetricsRegistry(`mark-${randomUUID()}`)),
      silentLogger,
    );
    await store.hSet(keys.state, {
      tournamentStatus: 'live',
      gameId: 'game-1',
      phase: 'voting',
      round: '1',
      votingEndsAt: String(Date.now() + 60_000),
    });
    await store.sAdd(keys.alive, 'ann', 'bob', 'cyd');
  });

  afterEach(() => store.close());

  const batch = (votes: Array<[voteId: string, userId: string]>, firstOffset = 0): BusMessage[] =>
    votes.map(([voteId, userId], i) => {
      const message = voteMessage({
        tournamentId,
        gameId: 'game-1',
        voteId,
        userId,
        roundNumber: 1,
        imageId: 'round-1-image-1',
      });
      return {
        topic: topics.gameVotes.name,
        partition: 0,
        offset: String(firstOffset + i),
        key: message.key,
        value: message.value,
        headers: message.headers ?? {},
        timestamp: Date.now(),
      };
    });

  const mark = async () => store.get(votesProgressKey(0));

  it('is raised with each vote, to one past the last of the batch', async () => {
    await applier.handleBatch(
      batch(
        [
          ['v1', 'ann'],
          ['v2', 'bob'],
          ['v3', 'cyd'],
        ],
        4,
      ),
    );
    expect(await mark()).toBe('7');
    expect(await store.hGet(keys.tally(1), 'round-1-image-1')).toBe('3');
  });

  it('stops before a vote whose step failed, and the batch delivered again completes it once', async () => {
    const votes = batch([
      ['v1', 'ann'],
      ['v2', 'bob'],
      ['v3', 'cyd'],
    ]);
    failing = 'v2';
    await expect(applier.handleBatch(votes)).rejects.toThrow('connection lost');
    // v3 was applied, but the mark stays at v2: resuming from it applies v2 (and v3 again).
    expect(await mark()).toBe('1');
    expect(await store.hGet(keys.state, 'totalVotes')).toBe('2');

    failing = undefined;
    await applier.handleBatch(votes.slice(1));
    expect(await mark()).toBe('3');
    expect(await store.hGet(keys.tally(1), 'round-1-image-1')).toBe('3');
  });

  it('answers where to resume: the mark, or 0 when the store has none', async () => {
    expect(await applier.storedOffset(0)).toBe('0');
    await applier.handleBatch(batch([['v1', 'ann']], 9));
    expect(await applier.storedOffset(0)).toBe('10');
  });
});
