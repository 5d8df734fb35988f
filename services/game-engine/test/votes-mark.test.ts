import { randomUUID } from 'node:crypto';
import type { BusMessage } from '@underdog/bus';
import { createMetricsRegistry } from '@underdog/kit';
import { gameKeys, votesProgressKey } from '@underdog/live-game';
import { topics } from '@underdog/platform';
import { createMemoryStore, type LiveStore } from '@underdog/store';
import { LiveGames } from '../src/adapters/live-games';
import { VoteBatches, VOTES_PER_APPLY } from '../src/adapters/vote-batches';
import { VotesApplier } from '../src/application/votes';
import { engineMetrics } from '../src/metrics';
import { silentLogger, voteMessage } from './support';

/**
 * The votes consumer applies a batch one script call per tournament (at most `VOTES_PER_APPLY`
 * votes a call), and each call raises the partition's applied mark, only to where the next call
 * starts and only once the call before it did: the consumer resumes from the mark after a
 * failover, so a mark ahead of an unapplied vote would lose that vote for good.
 */
describe('the applied mark of a votes partition', () => {
  const tournaments = ['t-mark-a', 't-mark-b'];
  let store: LiveStore;
  let failing: string | undefined;
  let calls: string[][];
  let applier: VotesApplier;

  beforeEach(async () => {
    store = createMemoryStore();
    failing = undefined;
    calls = [];
    // The store refuses the call holding one vote (a connection lost mid-batch, a script error).
    const flaky: LiveStore = Object.create(store) as LiveStore;
    flaky.run = (script, scriptKeys, args) => {
      if (script.name !== 'underdogApplyVotes') return store.run(script, scriptKeys, args);
      const voteIds = args
        .slice(2)
        .filter((_, i) => i % 8 === 1)
        .map(String);
      calls.push(voteIds);
      return failing !== undefined && voteIds.includes(failing)
        ? Promise.reject(new Error('connection lost'))
        : store.run(script, scriptKeys, args);
    };
    applier = new VotesApplier(
      new LiveGames(flaky),
      new VoteBatches(flaky),
      engineMetrics(createMetricsRegistry(`mark-${randomUUID()}`)),
      silentLogger,
    );
    for (const tournamentId of tournaments) {
      const keys = gameKeys(tournamentId);
      await store.hSet(keys.state, {
        tournamentStatus: 'live',
        gameId: 'game-1',
        phase: 'voting',
        round: '1',
        votingEndsAt: String(Date.now() + 60_000),
      });
      await store.sAdd(keys.alive, 'ann', 'bob', 'cyd');
    }
  });

  afterEach(() => store.close());

  type Vote = [voteId: string, userId: string, tournamentId?: string];
  const batch = (votes: Vote[], firstOffset = 0): BusMessage[] =>
    votes.map(([voteId, userId, tournamentId = tournaments[0]!], i) => {
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
  const tally = (tournamentId: string) =>
    store.hGet(gameKeys(tournamentId).tally(1), 'round-1-image-1');
  const [a, b] = tournaments as [string, string];
  // Two tournaments' votes interleaved on one partition: one call each, A's first.
  const interleaved: Vote[] = [
    ['a1', 'ann', a],
    ['b1', 'ann', b],
    ['a2', 'bob', a],
    ['b2', 'bob', b],
  ];

  it('is raised to one past the last of the batch, by one call for the batch', async () => {
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
    expect(calls).toEqual([['v1', 'v2', 'v3']]);
    expect(await mark()).toBe('7');
    expect(await tally(a)).toBe('3');
  });

  it('one call per tournament in partition order, the mark raised past both', async () => {
    await applier.handleBatch(batch(interleaved));
    expect(calls).toEqual([
      ['a1', 'a2'],
      ['b1', 'b2'],
    ]);
    expect(await mark()).toBe('4');
    expect([await tally(a), await tally(b)]).toEqual(['2', '2']);
  });

  it('stops at the first vote of a call that failed, and the batch delivered again completes it once', async () => {
    failing = 'b1';
    await expect(applier.handleBatch(batch(interleaved))).rejects.toThrow('connection lost');
    // A's call applied its votes and raised the mark to B's first vote, not past it.
    expect(await mark()).toBe('1');
    failing = undefined;
    await applier.handleBatch(batch(interleaved));
    expect(await mark()).toBe('4');
    expect([await tally(a), await tally(b)]).toEqual(['2', '2']);
  });

  it('never jumps over a failed first call, though the call after it applied its votes', async () => {
    failing = 'a1';
    await expect(applier.handleBatch(batch(interleaved))).rejects.toThrow('connection lost');
    expect(await mark()).toBeNull();
    expect(await tally(b)).toBe('2');
    failing = undefined;
    await applier.handleBatch(batch(interleaved));
    expect(await mark()).toBe('4');
    expect([await tally(a), await tally(b)]).toEqual(['2', '2']);
  });

  it(`cuts a tournament's votes into calls of at most ${VOTES_PER_APPLY}`, async () => {
    const users = Array.from({ length: 2 * VOTES_PER_APPLY + 1 }, (_, n) => `p${n}`);
    await store.sAdd(gameKeys(a).alive, ...users);
    await applier.handleBatch(batch(users.map((user) => [`v-${user}`, user])));
    expect(calls.map((call) => call.length)).toEqual([VOTES_PER_APPLY, VOTES_PER_APPLY, 1]);
    expect(await mark()).toBe(String(users.length));
    expect(await tally(a)).toBe(String(users.length));
  });

  it('is raised past messages that hold no vote', async () => {
    const empty = { ...batch([['v1', 'ann']])[0]!, value: null };
    await applier.handleBatch([
      { ...empty, offset: '5' },
      { ...empty, offset: '6' },
    ]);
    expect(calls).toEqual([]);
    expect(await mark()).toBe('7');
  });

  it('answers where to resume: the mark, or 0 when the store has none', async () => {
    expect(await applier.storedOffset(0)).toBe('0');
    await applier.handleBatch(batch([['v1', 'ann']], 9));
    expect(await applier.storedOffset(0)).toBe('10');
  });
});
