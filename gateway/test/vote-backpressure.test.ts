import { randomUUID } from 'node:crypto';
import { createMemoryBus, type BusMessage, type EventBus } from '@underdog/bus';
import { createLogger, isAppError } from '@underdog/kit';
import { applyVote, gameKeys, votesProgressKey } from '@underdog/live-game';
import { topics } from '@underdog/platform';
import { GameVoteEventSchema, UserSchema, create, fromBinary } from '@underdog/proto';
import { createMemoryStore, type LiveStore } from '@underdog/store';
import { waitFor } from '@underdog/test-support';
import { Registry } from 'prom-client';
import type { GatewayClients } from '../src/clients';
import { Games } from '../src/games';
import { RequestSession, SessionCookie, type RequestOrigin } from '../src/session';
import { VoteBacklog } from '../src/vote-backlog';

/**
 * Issue 35, acceptance 2: votes offered faster than a throttled engine applies them. A round's
 * close waits until every acknowledged vote is applied (ADR 9), so what the gateway acknowledges
 * is what the close waits on. The engine here applies `MAX_LAG` votes within the grace (that is
 * what the setting means); at the capture the backlog must fit in it: every acknowledged vote is
 * applied by the close, every other vote was answered the retryable VOTE_NOT_RECORDED and never
 * counts.
 */
const DEADLINE = Date.parse('2030-01-01T12:00:15.000Z');
const GRACE_MS = 1_000;
const MAX_LAG = 4;

/** The engine's votes consumer with a throttle: it applies one message per permit the test gives. */
class ThrottledEngine {
  private permits = 0;
  private wake: (() => void) | undefined;
  applied = 0;
  stopped = false;

  constructor(
    private readonly store: LiveStore,
    private readonly tournamentId: string,
  ) {}

  allow(messages: number): void {
    this.permits += messages;
    this.wake?.();
  }

  /** Until every permit given is used, or nothing is left on the partition to apply. */
  async settled(bus: EventBus, partition: number): Promise<void> {
    await waitFor(
      async () =>
        this.permits === 0 ||
        BigInt((await this.store.get(votesProgressKey(partition))) ?? 0) ===
          BigInt(await bus.endOffset(topics.gameVotes.name, partition)),
      'the throttled engine to use its permits',
    );
  }

  handleBatch = async (batch: BusMessage[]): Promise<void> => {
    for (const message of batch) {
      while (this.permits === 0 && !this.stopped) {
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
      if (this.stopped) throw new Error('stopped');
      this.permits -= 1;
      await this.apply(message);
      this.applied += 1;
    }
  };

  /** What the engine does with one message: `applyVote`, raising the partition's applied mark. */
  private async apply(message: BusMessage): Promise<void> {
    const event = fromBinary(GameVoteEventSchema, message.value!);
    if (event.kind.case !== 'voteCast') throw new Error('not a vote');
    const vote = event.kind.value;
    const keys = gameKeys(this.tournamentId);
    const round = vote.roundNumber;
    await this.store.run(
      applyVote,
      [
        keys.state,
        keys.alive,
        keys.ballots(round),
        keys.tally(round),
        keys.voteIds(round),
        keys.reserved(round),
        votesProgressKey(message.partition),
      ],
      [
        vote.gameId,
        vote.voteId,
        vote.userId,
        round,
        vote.imageId,
        0,
        JSON.stringify({ imageId: vote.imageId, castAt: 0, voteId: vote.voteId, username: '' }),
        String(BigInt(message.offset) + 1n),
        '',
      ],
    );
  }
}

type Outcome = { userId: string; answer: 'ACKNOWLEDGED' | string };

describe('back-pressure: votes offered faster than a throttled engine applies them (issue 35)', () => {
  const clock = { now: DEADLINE - 10_000 };
  let store: LiveStore;
  let bus: EventBus;
  let registry: Registry;
  let engine: ThrottledEngine;
  let games: Games;
  let partition: number;
  let stopEngine: () => Promise<void>;
  let players = 0;
  let TOURNAMENT: string;
  let keys: ReturnType<typeof gameKeys>;

  beforeEach(async () => {
    store = createMemoryStore();
    bus = createMemoryBus();
    await bus.ensureTopics([topics.gameVotes]);
    TOURNAMENT = `backpressure-${randomUUID()}`;
    keys = gameKeys(TOURNAMENT);
    partition = await bus.partitionOf(topics.gameVotes.name, TOURNAMENT);
    clock.now = DEADLINE - 10_000;
    await store.hSet(keys.state, {
      tournamentStatus: 'live',
      gameId: 'game-1',
      phase: 'voting',
      round: '1',
      votingEndsAt: String(DEADLINE),
      votesEndOffset: '',
    });
    registry = new Registry();
    engine = new ThrottledEngine(store, TOURNAMENT);
    const subscription = await bus.subscribe({
      groupId: `engine-${TOURNAMENT}`,
      topics: [topics.gameVotes.name],
      fromBeginning: true,
      handleBatch: engine.handleBatch,
    });
    stopEngine = async () => {
      engine.stopped = true;
      engine.allow(0);
      await subscription.stop();
    };
    games = new Games({
      clients: {} as Pick<GatewayClients, 'game'>,
      store,
      bus,
      registry,
      logger: createLogger({ service: 'test', level: 'silent' }),
      clock: { now: () => new Date(clock.now) },
      produceTimeoutMs: 1_000,
      backlog: { maxMessages: MAX_LAG, refreshMs: 0 },
    });
  });

  afterEach(async () => {
    await stopEngine();
    await bus.close();
    await store.close();
  });

  async function player(): Promise<RequestOrigin> {
    players += 1;
    const id = `player-${players}`;
    await store.hSet(keys.players, { [id]: JSON.stringify({ userId: id }) });
    await store.sAdd(keys.alive, id);
    const session = new RequestSession(
      {} as GatewayClients['auth'],
      new SessionCookie(false),
      undefined,
      () => undefined,
    );
    session.started(
      `session-${id}`,
      create(UserSchema, { id, username: id, isEmailVerified: true }),
    );
    return { ip: '127.0.0.1', deviceId: `device-${id}`, session };
  }

  async function offer(origin: RequestOrigin): Promise<Outcome> {
    const userId = (await origin.session.requireActor()).userId;
    try {
      await games.vote(origin, {
        tournamentId: TOURNAMENT,
        roundNumber: 1,
        imageId: `round-1-image-${players % 4}`,
      });
      return { userId, answer: 'ACKNOWLEDGED' };
    } catch (error) {
      if (!isAppError(error)) throw error;
      return { userId, answer: `${error.status} ${error.publicCode}` };
    }
  }

  /** Three votes at once for every vote the engine applies: a tournament out-voting its engine. */
  async function overload(
    waves: number,
  ): Promise<{ origins: RequestOrigin[]; outcomes: Outcome[] }> {
    const origins: RequestOrigin[] = [];
    const outcomes: Outcome[] = [];
    for (let wave = 0; wave < waves; wave += 1) {
      const batch = [await player(), await player(), await player()];
      origins.push(...batch);
      outcomes.push(...(await Promise.all(batch.map((origin) => offer(origin)))));
      engine.allow(1);
      await engine.settled(bus, partition);
    }
    return { origins, outcomes };
  }

  /** The runner at deadline + grace: the votes close and the partition's end is captured. */
  async function capture(): Promise<bigint> {
    clock.now = DEADLINE + GRACE_MS;
    await store.hSet(keys.state, { phase: 'voting_ended', votesEndOffset: 'closing' });
    return BigInt(await bus.endOffset(topics.gameVotes.name, partition));
  }

  const applied = async () => BigInt((await store.get(votesProgressKey(partition))) ?? 0);

  it('acknowledges only the votes the engine applies by the close, and refuses the others retryably before producing them', async () => {
    const { outcomes } = await overload(10);
    const captured = await capture();
    // Within the grace the engine applies MAX_LAG votes, no more.
    engine.allow(MAX_LAG);
    await engine.settled(bus, partition);

    const ballots = await store.hGetAll(keys.ballots(1));
    const acknowledged = outcomes.filter((o) => o.answer === 'ACKNOWLEDGED').map((o) => o.userId);
    const refused = outcomes.filter((o) => o.answer !== 'ACKNOWLEDGED');
    // Every acknowledged vote applied by the close: none acknowledged and then left out.
    expect(acknowledged.filter((userId) => ballots[userId] === undefined)).toEqual([]);
    expect(await applied()).toBe(captured);
    // Every other vote answered the retryable refusal, never produced, never counted.
    expect(new Set(refused.map((o) => o.answer))).toEqual(new Set(['503 VOTE_NOT_RECORDED']));
    expect(refused.filter((o) => ballots[o.userId] !== undefined)).toEqual([]);
    expect(captured).toBe(BigInt(acknowledged.length));
    // The overload was real: both answers were given.
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    const refusals = await registry.getSingleMetricAsString(
      'underdog_votes_backpressure_refusals_total',
    );
    expect(refusals).toContain(`underdog_votes_backpressure_refusals_total ${refused.length}`);
  });

  it('acknowledges and counts a refused vote sent again once the engine has caught up', async () => {
    const { origins, outcomes } = await overload(4);
    const refusedOrigins = origins.filter((_, i) => outcomes[i]!.answer !== 'ACKNOWLEDGED');
    expect(refusedOrigins.length).toBeGreaterThan(0);
    engine.allow(1_000);
    await engine.settled(bus, partition);

    // The engine keeps up again: each retry is acknowledged once the one before was applied.
    for (const origin of refusedOrigins) {
      expect((await offer(origin)).answer).toBe('ACKNOWLEDGED');
      await engine.settled(bus, partition);
    }

    const captured = await capture();
    await engine.settled(bus, partition);
    expect(await applied()).toBe(captured);
    const ballots = await store.hGetAll(keys.ballots(1));
    expect(Object.keys(ballots).length).toBe(origins.length);
  });
});

describe('the votes apply lag (VoteBacklog)', () => {
  it('reads the lag of a partition at most once per refresh interval, shared by every vote', async () => {
    const store = createMemoryStore();
    const bus = createMemoryBus();
    await bus.ensureTopics([topics.gameVotes]);
    let reads = 0;
    const counting = new Proxy(bus, {
      get: (target, property) => {
        const value = Reflect.get(target, property) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (property === 'endOffset') reads += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    let now = 0;
    const backlog = new VoteBacklog(
      { maxMessages: 1_000, refreshMs: 250 },
      {
        store,
        bus: counting,
        registry: new Registry(),
        logger: createLogger({ service: 'test', level: 'silent' }),
        now: () => now,
      },
    );
    // Fifty votes at once on a partition never read: one read, all of them wait for it.
    const places = await Promise.all(Array.from({ length: 50 }, () => backlog.place('t')));
    expect(places.every((place) => place !== undefined)).toBe(true);
    expect(reads).toBe(1);
    now = 100;
    await Promise.all(Array.from({ length: 50 }, () => backlog.place('t')));
    expect(reads).toBe(1);
    // Past the interval one vote starts a read; the votes meanwhile share it.
    now = 300;
    await Promise.all(Array.from({ length: 50 }, () => backlog.place('t')));
    expect(reads).toBe(2);
    await bus.close();
    await store.close();
  });

  it('reports the lag of each partition it votes on, read again at a scrape when no vote read it lately', async () => {
    const store = createMemoryStore();
    const bus = createMemoryBus();
    await bus.ensureTopics([topics.gameVotes]);
    const registry = new Registry();
    let now = 0;
    const backlog = new VoteBacklog(
      { maxMessages: 1_000, refreshMs: 250 },
      {
        store,
        bus,
        registry,
        logger: createLogger({ service: 'test', level: 'silent' }),
        now: () => now,
      },
    );
    const partition = await bus.partitionOf(topics.gameVotes.name, 't');
    await backlog.place('t');
    const gauge = async () =>
      (await registry.getSingleMetric('underdog_votes_apply_lag_messages')!.get()).values.find(
        (value) => value.labels.partition === String(partition),
      )?.value;
    expect(await gauge()).toBe(0);
    // Three votes on the partition, two applied (the mark), no vote since.
    await bus.publish(topics.gameVotes.name, [
      { key: 't', value: new Uint8Array() },
      { key: 't', value: new Uint8Array() },
      { key: 't', value: new Uint8Array() },
    ]);
    await store.set(votesProgressKey(partition), '2');
    now = 1_000;
    expect(await gauge()).toBe(1);
    await bus.close();
    await store.close();
  });

  it('refuses a place once its own votes fill the backlog, before any new read', async () => {
    const store = createMemoryStore();
    const bus = createMemoryBus();
    await bus.ensureTopics([topics.gameVotes]);
    const backlog = new VoteBacklog(
      { maxMessages: 3, refreshMs: 60_000 },
      {
        store,
        bus,
        registry: new Registry(),
        logger: createLogger({ service: 'test', level: 'silent' }),
        now: () => 0,
      },
    );
    const first = await backlog.place('t');
    const second = await backlog.place('t');
    first!.landed();
    second!.done();
    expect(await backlog.place('t')).toBeDefined();
    expect(await backlog.place('t')).toBeDefined();
    // One landed, two in flight: the backlog holds 3 of its votes, whatever the last read said.
    expect(await backlog.place('t')).toBeUndefined();
    await bus.close();
    await store.close();
  });
});
