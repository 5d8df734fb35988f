import { createMemoryBus, type EventBus } from '@underdog/bus';
import { AppError, createLogger, isAppError } from '@underdog/kit';
import { VOTING_GRACE_MS, gameKeys } from '@underdog/live-game';
import { topics } from '@underdog/platform';
import { UserSchema, create } from '@underdog/proto';
import { createMemoryStore, type LiveStore } from '@underdog/store';
import { Registry } from 'prom-client';
import type { GatewayClients } from '../src/clients';
import { Games } from '../src/games';
import { RequestSession, SessionCookie, type RequestOrigin } from '../src/session';

/**
 * The guarantee "a vote the player saw acknowledged before the deadline is counted exactly once"
 * (issue 9): the engine counts what is on the partition when it captures its end at
 * deadline + grace, so the gateway must not acknowledge a vote whose produce completed later.
 * The produce's duration is simulated by a bus that moves the injected clock forward.
 */
const TOURNAMENT = 'tournament-late-ack';
const DEADLINE = Date.parse('2030-01-01T12:00:15.000Z');
const MARGIN_MS = 250;

class SlowBus {
  /** Real time a produce takes (the clock above is the server's, injected). */
  realDelayMs = 0;

  constructor(
    private readonly bus: EventBus,
    private readonly clock: { now: number },
    public produceMs: number,
  ) {}

  publish: EventBus['publish'] = async (topic, messages) => {
    this.clock.now += this.produceMs;
    if (this.realDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.realDelayMs));
    await this.bus.publish(topic, messages);
  };
}

describe('a vote is acknowledged only if its produce completed before the engine captures the votes partition', () => {
  let store: LiveStore;
  let bus: EventBus;
  let slow: SlowBus;
  let games: Games;
  let registry: Registry;
  const clock = { now: 0 };
  let players = 0;

  beforeEach(async () => {
    store = createMemoryStore();
    bus = createMemoryBus();
    await bus.ensureTopics([topics.gameVotes]);
    slow = new SlowBus(bus, clock, 0);
    registry = new Registry();
    games = new Games({
      clients: {} as Pick<GatewayClients, 'game'>,
      store,
      bus: slow as unknown as EventBus,
      registry,
      logger: createLogger({ service: 'test', level: 'silent' }),
      clock: { now: () => new Date(clock.now) },
      ackMarginMs: MARGIN_MS,
    });
    const keys = gameKeys(TOURNAMENT);
    await store.hSet(keys.state, {
      tournamentStatus: 'live',
      gameId: 'game-1',
      phase: 'voting',
      round: '1',
      votingEndsAt: String(DEADLINE),
    });
  });
  afterEach(async () => {
    await bus.close();
    await store.close();
  });

  async function player(): Promise<RequestOrigin> {
    players += 1;
    const id = `player-${players}`;
    const keys = gameKeys(TOURNAMENT);
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

  async function votesOnPartition(): Promise<bigint> {
    const partition = await bus.partitionOf(topics.gameVotes.name, TOURNAMENT);
    return BigInt(await bus.endOffset(topics.gameVotes.name, partition));
  }

  async function refusalOf(promise: Promise<unknown>): Promise<string> {
    try {
      await promise;
    } catch (error) {
      if (isAppError(error)) return error.reason ?? error.publicCode;
      throw error;
    }
    throw new AppError('INTERNAL', 'the vote was acknowledged');
  }

  const vote = { tournamentId: TOURNAMENT, roundNumber: 1, imageId: 'round-1-image-0' };

  it('acknowledges a vote stamped before the deadline whose produce completes within the grace, margin kept', async () => {
    clock.now = DEADLINE - 100;
    slow.produceMs = VOTING_GRACE_MS - MARGIN_MS; // completes at deadline + grace - margin - 100
    await expect(games.vote(await player(), vote)).resolves.toEqual(vote);
    expect(await votesOnPartition()).toBe(1n);
  });

  it('answers VOTING_CLOSED to a vote stamped before the deadline whose produce completes after deadline + grace', async () => {
    clock.now = DEADLINE - 100;
    slow.produceMs = VOTING_GRACE_MS + 200; // the engine may already have captured the end
    expect(await refusalOf(games.vote(await player(), vote))).toBe('VOTING_CLOSED');
    // The message is on the partition; the player was not told it counts (docs/adr/0007).
    expect(await votesOnPartition()).toBe(1n);
  });

  it('answers VOTING_CLOSED inside the safety margin before deadline + grace (clock skew)', async () => {
    clock.now = DEADLINE;
    slow.produceMs = VOTING_GRACE_MS - MARGIN_MS + 1;
    expect(await refusalOf(games.vote(await player(), vote))).toBe('VOTING_CLOSED');
  });

  it('keeps the first vote reserved after a late produce: a retry is ALREADY_VOTED, never a second message', async () => {
    const origin = await player();
    clock.now = DEADLINE - 10;
    slow.produceMs = VOTING_GRACE_MS * 2;
    expect(await refusalOf(games.vote(origin, vote))).toBe('VOTING_CLOSED');
    clock.now = DEADLINE - 5; // a retry from a clock that has not moved on (another replica)
    slow.produceMs = 0;
    expect(await refusalOf(games.vote(origin, vote))).toBe('ALREADY_VOTED');
    expect(await votesOnPartition()).toBe(1n);
  });

  it('times each step of an admitted vote, so a slow acknowledgement shows where it waited', async () => {
    clock.now = DEADLINE - 5_000;
    slow.realDelayMs = 40;
    await games.vote(await player(), vote);
    const { values } = (await registry.getSingleMetric('underdog_vote_stage_seconds')!.get()) as {
      values: Array<{ metricName?: string; labels: Record<string, string>; value: number }>;
    };
    const of = (suffix: string, stage: string) =>
      values.find(
        (entry) =>
          entry.metricName === `underdog_vote_stage_seconds_${suffix}` &&
          entry.labels.stage === stage,
      )?.value;
    for (const stage of ['actor', 'admit', 'produce']) expect(of('count', stage)).toBe(1);
    // The 40 ms the produce took are counted in the produce's step.
    expect(of('sum', 'produce')).toBeGreaterThanOrEqual(0.03);
  });
});
