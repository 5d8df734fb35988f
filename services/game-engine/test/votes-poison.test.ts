import { randomUUID } from 'node:crypto';
import type { BusMessage, Poison } from '@underdog/bus';
import { createMetricsRegistry } from '@underdog/kit';
import { gameKeys, votesProgressKey } from '@underdog/live-game';
import { topics } from '@underdog/platform';
import { createMemoryStore, LiveStoreError, type LiveStore } from '@underdog/store';
import { LiveGames } from '../src/adapters/live-games';
import { VoteBatches } from '../src/adapters/vote-batches';
import { VotesApplier } from '../src/application/votes';
import { engineMetrics, type EngineMetrics } from '../src/metrics';
import { silentLogger, voteMessage } from './support';

/**
 * Poison on `game.votes` (issue 38): a message no retry will ever apply is parked and passed, so
 * its partition goes on; a failure a retry may cure (a lost connection, READONLY) is not poison
 * and delivers the batch again. `votes-poison.int.test.ts` shows it on real Kafka and Redis.
 */
describe('the votes consumer and poison', () => {
  const tournamentId = 't-poison';
  let store: LiveStore;
  let metrics: EngineMetrics;
  let parked: Poison[];
  /** The store's answer to a call holding the vote `poison`. */
  let refusal: Error;
  let applier: VotesApplier;

  beforeEach(async () => {
    store = createMemoryStore();
    parked = [];
    refusal = new LiveStoreError('ERR user_script:18: attempt to compare nil with number');
    const poisoned: LiveStore = Object.create(store) as LiveStore;
    poisoned.run = (script, scriptKeys, args) =>
      script.name === 'underdogApplyVotes' && args.includes('poison')
        ? Promise.reject(refusal)
        : store.run(script, scriptKeys, args);
    metrics = engineMetrics(createMetricsRegistry(`poison-${randomUUID()}`));
    applier = new VotesApplier(
      new LiveGames(poisoned),
      new VoteBatches(poisoned),
      metrics,
      silentLogger,
      async (poison) => {
        parked.push(...poison);
      },
    );
    const keys = gameKeys(tournamentId);
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

  const message = (voteId: string, userId: string, offset: number): BusMessage => {
    const vote = voteMessage({
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
      offset: String(offset),
      key: vote.key,
      value: vote.value,
      headers: vote.headers ?? {},
      timestamp: Date.now(),
    };
  };
  const mark = () => store.get(votesProgressKey(0));
  const tally = () => store.hGet(gameKeys(tournamentId).tally(1), 'round-1-image-1');
  const parkedCount = async (reason: string) =>
    (await metrics.votesParked.get()).values.find((value) => value.labels.reason === reason)
      ?.value ?? 0;

  it('parks a vote the apply script fails on, alone, and applies the votes around it', async () => {
    await applier.handleBatch([
      message('v1', 'ann', 10),
      message('poison', 'bob', 11),
      message('v3', 'cyd', 12),
    ]);
    expect(parked.map(({ message: m, reason }) => [m.offset, reason])).toEqual([
      ['11', 'script_error'],
    ]);
    expect(await tally()).toBe('2');
    expect(await mark()).toBe('13');
    expect(await parkedCount('script_error')).toBe(1);
  });

  it('parks unreadable bytes and passes them, counted', async () => {
    const bytes = { ...message('v1', 'ann', 3), value: Uint8Array.from([0xff, 0xff, 0xff, 0x07]) };
    await applier.handleBatch([bytes, message('v2', 'bob', 4)]);
    expect(parked.map(({ reason }) => reason)).toEqual(['unreadable']);
    expect(await tally()).toBe('1');
    expect(await mark()).toBe('5');
    expect(await parkedCount('unreadable')).toBe(1);
  });

  it('does not park on a refusal a retry may cure: the batch is delivered again', async () => {
    refusal = new LiveStoreError("READONLY You can't write against a read only replica.");
    await expect(
      applier.handleBatch([message('v1', 'ann', 0), message('poison', 'bob', 1)]),
    ).rejects.toThrow('READONLY');
    expect(parked).toEqual([]);
    expect(await mark()).toBeNull();
  });

  it('does not pass a poison message it could not park: the batch is delivered again', async () => {
    applier = new VotesApplier(
      new LiveGames(store),
      new VoteBatches(store),
      metrics,
      silentLogger,
      () => Promise.reject(new Error('dead-letter topic unreachable')),
    );
    const bytes = { ...message('v1', 'ann', 0), value: Uint8Array.from([0xff, 0xff, 0xff, 0x07]) };
    await expect(applier.handleBatch([bytes, message('v2', 'bob', 1)])).rejects.toThrow(
      'dead-letter topic unreachable',
    );
    expect(await mark()).toBeNull();
  });
});
