import { randomUUID } from 'node:crypto';
import type { EventBus } from '@underdog/bus';
import { AppError, createLogger, isAppError } from '@underdog/kit';
import {
  admitVote,
  allSlotKeys,
  applyVote,
  gameKeys,
  playerSlotKeys,
  settleVote,
  votesKey,
} from '@underdog/live-game';
import { VOTING_GRACE_MS } from '@underdog/rules';
import { topics } from '@underdog/platform';
import {
  GameVoteEventSchema,
  UserSchema,
  create,
  fromBinary,
  timestampDate,
  type VoteCast,
} from '@underdog/proto';
import { waitFor } from '@underdog/test-support';
import { storeWith, type LiveStore } from '@underdog/store';
import { Registry } from 'prom-client';
import type { GatewayClients } from '../src/clients';
import { Games } from '../src/games';
import { RequestSession, SessionCookie, type RequestOrigin } from '../src/session';

/**
 * The guarantees "acknowledged ⇒ counted" and "refused ⇒ not counted" (issue 29, ADR 9): the
 * gateway settles every produced vote in the live store, atomically against the engine applying
 * it, and answers from that. The engine is played by the test: it closes the round's votes
 * (`votesEndOffset`) and applies the messages on the partition with the engine's own script.
 * The produce's duration is simulated by a bus that runs a step of the engine meanwhile.
 */
const DEADLINE = Date.parse('2030-01-01T12:00:15.000Z');

/** The games' vote slots (docs/adr/0012): `UNDERDOG_TEST_VOTE_SLOTS`, 1 when unset. */
const SLOTS = Number(process.env.UNDERDOG_TEST_VOTE_SLOTS ?? 1) || 1;

class SlowBus {
  /** Real time a produce takes (the clock above is the server's, injected). */
  realDelayMs = 0;
  /** What happens while the produce is in flight, before it completes (the engine's steps). */
  meanwhile: (() => Promise<unknown>) | undefined;
  /** Held produces: the message lands only when released (a broker failover in flight). */
  hold: Promise<void> | undefined;
  /** A produce that fails outright. */
  failing = false;

  constructor(
    private readonly bus: EventBus,
    private readonly clock: { now: number },
    public produceMs: number,
  ) {}

  publish: EventBus['publish'] = async (topic, messages) => {
    this.clock.now += this.produceMs;
    if (this.realDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.realDelayMs));
    if (this.hold) await this.hold;
    if (this.failing) throw new Error('broker unavailable');
    const appended = await this.bus.publish(topic, messages);
    await this.meanwhile?.();
    return appended;
  };
}

export interface VoteSettlementFixture {
  store: LiveStore;
  bus: EventBus;
  /** How long a produce may take here before VOTE_NOT_RECORDED (a real broker needs more). */
  produceTimeoutMs: number;
  /**
   * The same live store as the gateway reaches it, through a link the test can cut (a TCP proxy
   * on Redis; a wrapper failing every call as ioredis does on the memory store): an outage.
   */
  gatewayStore: LiveStore;
  outage: { cut(): void; restore(): void };
  cleanup(): Promise<void>;
}

/**
 * A gateway that dies (or freezes) after producing a vote, before settling it: its settlement
 * does not reach the store (`died` resolves when it would have run) until `resume` (a frozen
 * process waking up); the vote stays admitted, unsettled, meanwhile.
 */
export function dyingStore(store: LiveStore): {
  store: LiveStore;
  died: Promise<void>;
  resume: () => void;
} {
  let died!: () => void;
  const diedPromise = new Promise<void>((resolve) => (died = resolve));
  let resume!: () => void;
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  const run: LiveStore['run'] = async (script, keys, args) => {
    if ((script as unknown) === settleVote) {
      died();
      await resumed;
    }
    return store.run(script, keys, args);
  };
  return {
    store: storeWith(store, { run }),
    died: diedPromise,
    resume,
  };
}

/** The store, with the replies of every vote admission run through it (`admitVote`), in order. */
export function admissionsOf(store: LiveStore): { store: LiveStore; replies: string[] } {
  const replies: string[] = [];
  const run: LiveStore['run'] = async (script, keys, args) => {
    const reply = await store.run(script, keys, args);
    if ((script as unknown) === admitVote) replies.push(String(reply));
    return reply;
  };
  return {
    store: storeWith(store, { run }),
    replies,
  };
}

/** The memory store behind a link that fails every call, as ioredis does, while it is cut. */
export function cuttableStore(store: LiveStore): {
  store: LiveStore;
  outage: { cut(): void; restore(): void };
} {
  let cut = false;
  return {
    store: new Proxy(store, {
      get: (target, property) => {
        const value = Reflect.get(target, property) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) =>
          cut
            ? Promise.reject(new Error('Connection is closed.'))
            : (value as (...a: unknown[]) => unknown).apply(target, args);
      },
    }),
    outage: {
      cut: () => (cut = true),
      restore: () => (cut = false),
    },
  };
}

/** The suite, run on the in-memory adapters (unit) and on real Redis and Kafka (integration). */
export function describeVoteSettlement(
  adapters: string,
  createFixture: () => Promise<VoteSettlementFixture>,
) {
  describe(`a vote is acknowledged only if it will be counted, and refused only if it never will be (${adapters})`, () => {
    let fixture: VoteSettlementFixture;
    let store: LiveStore;
    let bus: EventBus;
    let slow: SlowBus;
    let games: Games;
    let registry: Registry;
    const clock = { now: 0 };
    let players = 0;
    let TOURNAMENT: string;
    let keys: ReturnType<typeof gameKeys>;

    beforeEach(async () => {
      fixture = await createFixture();
      ({ store, bus } = fixture);
      TOURNAMENT = `tournament-${randomUUID()}`;
      keys = gameKeys(TOURNAMENT);
      await bus.ensureTopics([topics.gameVotes]);
      slow = new SlowBus(bus, clock, 0);
      registry = new Registry();
      games = gateway({ store: fixture.gatewayStore });
      await store.hSet(keys.state, {
        tournamentStatus: 'live',
        gameId: 'game-1',
        phase: 'voting',
        round: '1',
        votingEndsAt: String(DEADLINE),
        votesEndOffset: '',
        voteSlots: String(SLOTS),
      });
    });
    afterEach(() => fixture.cleanup());

    /** A gateway on these adapters; the tests' waits are short, not the production ones. */
    function gateway(
      overrides: { store?: LiveStore; bus?: EventBus; withdrawalReplicas?: number } = {},
    ): Games {
      return new Games({
        clients: {} as Pick<GatewayClients, 'game'>,
        store: overrides.store ?? store,
        bus: overrides.bus ?? (slow as unknown as EventBus),
        registry,
        logger: createLogger({ service: 'test', level: 'silent' }),
        clock: { now: () => new Date(clock.now) },
        produceTimeoutMs: fixture.produceTimeoutMs,
        resendWaitMs: 500,
        resendPollMs: 20,
        settleRetryMs: 1_500,
        storeTimeoutMs: 500,
        withdrawalReplicas: overrides.withdrawalReplicas ?? 0,
        withdrawalWaitMs: 50,
      });
    }

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

    /**
     * Every vote of the tournament on its partitions (one per vote slot's key, docs/adr/0012), in
     * order within each (the topic may be shared).
     */
    async function votesOnPartition(): Promise<VoteCast[]> {
      const received: VoteCast[] = [];
      const partitions = new Set<number>();
      for (let slot = 0; slot < SLOTS; slot++) {
        partitions.add(
          await bus.partitionOf(topics.gameVotes.name, votesKey(TOURNAMENT, slot, SLOTS)),
        );
      }
      for (const partition of [...partitions].sort((a, b) => a - b)) {
        received.push(...(await votesOn(partition)));
      }
      return received;
    }

    async function votesOn(partition: number): Promise<VoteCast[]> {
      const end = BigInt(await bus.endOffset(topics.gameVotes.name, partition));
      const received: VoteCast[] = [];
      let reached = end === 0n;
      const subscription = await bus.subscribe({
        groupId: `reader-${randomUUID()}`,
        topics: [topics.gameVotes.name],
        fromBeginning: true,
        handleBatch: async (batch) => {
          for (const message of batch) {
            if (message.partition !== partition) continue;
            if (BigInt(message.offset) >= end - 1n) reached = true;
            if (BigInt(message.offset) >= end) continue;
            // The topic is shared: another file's poison messages (issue 38) are no event.
            const event = readableVote(message.value);
            if (event?.tournamentId === TOURNAMENT && event.kind.case === 'voteCast') {
              received.push(event.kind.value);
            }
          }
        },
      });
      await waitFor(() => reached, 'the votes on the partition');
      await subscription.stop();
      return received;
    }

    /** The engine applies every vote on the partition (idempotent by vote id): the replies. */
    async function engineApplies(): Promise<string[]> {
      const replies: string[] = [];
      for (const vote of await votesOnPartition()) {
        const round = vote.roundNumber;
        const ballot = { imageId: vote.imageId, castAt: 0, voteId: vote.voteId, username: '' };
        replies.push(
          await store.run(
            applyVote,
            [
              keys.state,
              keys.alive,
              ...[slotOf(vote.userId)].flatMap((slot) => [
                slot.ballots(round),
                slot.tally(round),
                slot.voteIds(round),
                slot.reserved(round),
              ]),
            ],
            [
              vote.gameId,
              vote.voteId,
              vote.userId,
              round,
              vote.imageId,
              vote.castAt ? timestampDate(vote.castAt).getTime() : 0,
              JSON.stringify({ ...ballot, offline: false }),
            ],
          ),
        );
      }
      return replies;
    }

    /** A player's vote slot's round keys (the engine's, the gateway's). */
    const slotOf = (userId: string) => playerSlotKeys(TOURNAMENT, userId, SLOTS);

    /** Round N's tally, the K slots' summed. */
    async function tallyOf(round: number): Promise<Record<string, string>> {
      const sum: Record<string, string> = {};
      for (const slot of allSlotKeys(TOURNAMENT, SLOTS)) {
        for (const [image, count] of Object.entries(await store.hGetAll(slot.tally(round)))) {
          sum[image] = String(Number(sum[image] ?? 0) + Number(count));
        }
      }
      return sum;
    }

    /** The engine's step at deadline + grace: the round's votes are closing (ADR 9). */
    const engineCloses = () =>
      store.hSet(keys.state, { phase: 'voting_ended', votesEndOffset: 'closing' });

    const counted = async () => Number((await store.hGet(keys.state, 'totalVotes')) ?? 0);

    async function refusalOf(promise: Promise<unknown>): Promise<string> {
      try {
        await promise;
      } catch (error) {
        if (isAppError(error)) return error.reason ?? error.publicCode;
        throw error;
      }
      throw new AppError('INTERNAL', 'the vote was acknowledged');
    }

    let vote: { tournamentId: string; roundNumber: number; imageId: string };
    beforeEach(() => {
      vote = { tournamentId: TOURNAMENT, roundNumber: 1, imageId: 'round-1-image-0' };
    });

    it('acknowledges a vote produced while voting is open, and the engine counts it', async () => {
      clock.now = DEADLINE - 100;
      await expect(games.vote(await player(), vote)).resolves.toEqual(vote);
      expect(await engineApplies()).toEqual(['COUNTED']);
    });

    it('acknowledges a vote stamped before the deadline whose produce completes in the grace, before the votes close', async () => {
      clock.now = DEADLINE - 10;
      slow.produceMs = VOTING_GRACE_MS / 2;
      slow.meanwhile = () => store.hSet(keys.state, { phase: 'voting_ended' });
      await expect(games.vote(await player(), vote)).resolves.toEqual(vote);
      expect(await engineApplies()).toEqual(['COUNTED']);
    });

    it('answers VOTING_CLOSED to a vote produced after the votes began closing, and the engine never counts it', async () => {
      clock.now = DEADLINE - 10;
      slow.produceMs = VOTING_GRACE_MS * 20; // a broker outage: the produce completes much later
      slow.meanwhile = engineCloses;
      expect(await refusalOf(games.vote(await player(), vote))).toBe('VOTING_CLOSED');
      // The message is on the partition; the engine, reading it afterwards, does not count it.
      expect(await engineApplies()).toEqual(['DUPLICATE']);
      expect(await counted()).toBe(0);
    });

    describe('a withdrawal waits for the replicas (WAIT) before the final VOTING_CLOSED', () => {
      /** The gateway's store, with `waitForReplicas` answering `confirmed` (a replica caught up). */
      const replicasConfirming = (confirmed: number): LiveStore =>
        storeWith(fixture.gatewayStore, { waitForReplicas: async () => confirmed });

      it('no replica confirms the withdrawal: VOTE_NOT_RECORDED, not VOTING_CLOSED; nothing counted; the resend is answered VOTING_CLOSED', async () => {
        // This store has no replica: WAIT 1 answers 0 after its timeout.
        games = gateway({ store: fixture.gatewayStore, withdrawalReplicas: 1 });
        const origin = await player();
        clock.now = DEADLINE - 10;
        slow.produceMs = VOTING_GRACE_MS * 20;
        slow.meanwhile = engineCloses;
        expect(await refusalOf(games.vote(origin, vote))).toBe('VOTE_NOT_RECORDED');
        expect(await engineApplies()).toEqual(['DUPLICATE']);
        expect(await counted()).toBe(0);
        // The resend: the withdrawal stands, so the true fate is the refusal (no write, no wait).
        slow.meanwhile = undefined;
        expect(await refusalOf(games.vote(origin, vote))).toBe('VOTING_CLOSED');
        expect(await counted()).toBe(0);
      });

      it('the replica confirms the withdrawal: VOTING_CLOSED', async () => {
        games = gateway({ store: replicasConfirming(1), withdrawalReplicas: 1 });
        clock.now = DEADLINE - 10;
        slow.produceMs = VOTING_GRACE_MS * 20;
        slow.meanwhile = engineCloses;
        expect(await refusalOf(games.vote(await player(), vote))).toBe('VOTING_CLOSED');
        expect(await engineApplies()).toEqual(['DUPLICATE']);
        expect(await counted()).toBe(0);
      });
    });

    it('acknowledges a late produce the engine has already counted', async () => {
      clock.now = DEADLINE - 10;
      slow.produceMs = VOTING_GRACE_MS * 2;
      slow.meanwhile = async () => {
        await engineApplies();
        await engineCloses();
      };
      await expect(games.vote(await player(), vote)).resolves.toEqual(vote);
      expect(await counted()).toBe(1);
    });

    it('answers VOTE_NOT_RECORDED, in bounded time, while the produce cannot complete; the message landing later is not counted; the retry is', async () => {
      const origin = await player();
      clock.now = DEADLINE - 5_000;
      let release!: () => void;
      slow.hold = new Promise((resolve) => (release = resolve));
      // The answer comes after produceTimeoutMs; it does not wait for the held produce.
      expect(await refusalOf(games.vote(origin, vote))).toBe('VOTE_NOT_RECORDED');
      slow.hold = undefined;
      release();
      await waitFor(async () => (await votesOnPartition()).length === 1, 'the held vote to land');
      expect(await engineApplies()).toEqual(['DUPLICATE']);
      expect(await counted()).toBe(0);

      // The player retries: admitted again (the reservation was released) and acknowledged.
      await expect(games.vote(origin, { ...vote, imageId: 'round-1-image-2' })).resolves.toEqual({
        ...vote,
        imageId: 'round-1-image-2',
      });
      expect(await engineApplies()).toEqual(['DUPLICATE', 'COUNTED']);
      expect(await counted()).toBe(1);
      expect(await tallyOf(1)).toEqual({ 'round-1-image-2': '1' });
    });

    it('answers VOTE_NOT_RECORDED when the produce fails, and admits the retry', async () => {
      const origin = await player();
      clock.now = DEADLINE - 5_000;
      slow.failing = true;
      expect(await refusalOf(games.vote(origin, vote))).toBe('VOTE_NOT_RECORDED');
      slow.failing = false;
      await expect(games.vote(origin, vote)).resolves.toEqual(vote);
      expect(await engineApplies()).toEqual(['COUNTED']);
    });

    /** The engine past the deadline, its close not begun: the grace, or a close held (ADR 9, 7). */
    const engineHoldsTheClose = () =>
      store.hSet(keys.state, { phase: 'voting_ended', votesEndOffset: '' });

    /** A player whose vote, cast 100 ms before the deadline, could not be produced; now 3 s past it. */
    async function heldPastTheDeadline(): Promise<RequestOrigin> {
      const origin = await player();
      clock.now = DEADLINE - 100;
      slow.failing = true;
      expect(await refusalOf(games.vote(origin, vote))).toBe('VOTE_NOT_RECORDED');
      slow.failing = false;
      clock.now = DEADLINE + 3_000;
      await engineHoldsTheClose();
      return origin;
    }

    it('holds a vote cast in time whose produce failed: its retry past the deadline, before the close, is acknowledged as cast in time and counted', async () => {
      const origin = await heldPastTheDeadline();
      await expect(games.vote(origin, vote)).resolves.toEqual(vote);
      const [produced] = await votesOnPartition();
      expect(timestampDate(produced!.castAt!).getTime()).toBe(DEADLINE - 100);
      expect(await engineApplies()).toEqual(['COUNTED']);
      expect(await counted()).toBe(1);
    });

    it('refuses VOTING_CLOSED, past the deadline, a held vote sent for another image, and any once the round began closing', async () => {
      const origin = await heldPastTheDeadline();
      expect(await refusalOf(games.vote(origin, { ...vote, imageId: 'round-1-image-3' }))).toBe(
        'VOTING_CLOSED',
      );
      await engineCloses();
      expect(await refusalOf(games.vote(origin, vote))).toBe('VOTING_CLOSED');
      expect(await votesOnPartition()).toHaveLength(0);
      expect(await counted()).toBe(0);
    });

    it('keeps the first vote of a player: the same again is acknowledged (the same vote), another image is ALREADY_VOTED, never a second message', async () => {
      const origin = await player();
      clock.now = DEADLINE - 10;
      await games.vote(origin, vote);
      await expect(games.vote(origin, vote)).resolves.toEqual(vote);
      expect(await refusalOf(games.vote(origin, { ...vote, imageId: 'round-1-image-1' }))).toBe(
        'ALREADY_VOTED',
      );
      expect(await votesOnPartition()).toHaveLength(1);
      expect(await engineApplies()).toEqual(['COUNTED']);
    });

    describe('a resend is the same vote: (game, round, player) is its identity', () => {
      /** A vote through a gateway that produces it and dies before settling it. */
      async function votedThroughDyingGateway(origin: RequestOrigin, produce = true) {
        const dying = dyingStore(store);
        const hanging = { publish: () => new Promise<void>(() => undefined) };
        const dead = gateway({
          store: dying.store,
          ...(produce ? {} : { bus: hanging as unknown as EventBus }),
        });
        void dead.vote(origin, vote).catch(() => undefined);
        await dying.died;
      }

      it.each([
        ['before the deadline', DEADLINE - 5_000, false],
        ['after the deadline, the votes closing', DEADLINE + 500, true],
      ])(
        '%s: the resend of a vote its gateway produced then died with is acknowledged, and counted once',
        async (_when, resendAt, closing) => {
          const origin = await player();
          clock.now = DEADLINE - 6_000;
          await votedThroughDyingGateway(origin);
          clock.now = resendAt;
          if (closing) await engineCloses();
          // The engine applies the original while the resend waits for its fate: the marker is
          // the resend's admission answered PENDING (the original, unsettled), not a pause.
          const watched = admissionsOf(fixture.gatewayStore);
          const resend = gateway({ store: watched.store }).vote(origin, vote);
          await waitFor(
            () => watched.replies.some((reply) => reply.startsWith('PENDING:')),
            'the resend waiting on its original',
          );
          expect(await engineApplies()).toEqual(['COUNTED']);
          await expect(resend).resolves.toEqual(vote);
          expect(await votesOnPartition()).toHaveLength(1);
          expect(await counted()).toBe(1);
        },
      );

      it.each([
        ['before the deadline', DEADLINE - 5_000, false],
        ['after the deadline, the votes closing', DEADLINE + 500, true],
        ['after the round resolved', DEADLINE + 5_000, 'results'],
      ])(
        '%s: the resend of a vote the engine already counted is acknowledged at once; another image is ALREADY_VOTED',
        async (_when, resendAt, after) => {
          const origin = await player();
          clock.now = DEADLINE - 6_000;
          await votedThroughDyingGateway(origin);
          expect(await engineApplies()).toEqual(['COUNTED']);
          clock.now = resendAt;
          if (after) await engineCloses();
          if (after === 'results') await store.hSet(keys.state, { phase: 'results' });
          await expect(games.vote(origin, vote)).resolves.toEqual(vote);
          expect(await refusalOf(games.vote(origin, { ...vote, imageId: 'round-1-image-3' }))).toBe(
            'ALREADY_VOTED',
          );
          expect(await votesOnPartition()).toHaveLength(1);
          expect(await counted()).toBe(1);
        },
      );

      it('before the deadline: a vote its gateway died with before producing it is replaced by the resend, counted once', async () => {
        const origin = await player();
        clock.now = DEADLINE - 10_000;
        await votedThroughDyingGateway(origin, false);
        // Older than the longest its own gateway could take to settle it: nobody will.
        clock.now = DEADLINE - 10_000 + fixture.produceTimeoutMs + 1_001;
        await expect(games.vote(origin, vote)).resolves.toEqual(vote);
        expect(await engineApplies()).toEqual(['COUNTED']);
        expect(await counted()).toBe(1);
      });

      it('after the deadline: the resend of a vote never produced waits for its fate, then withdraws it: VOTING_CLOSED, nothing counted', async () => {
        const origin = await player();
        clock.now = DEADLINE - 100;
        await votedThroughDyingGateway(origin, false);
        clock.now = DEADLINE + 500;
        await engineCloses();
        expect(await refusalOf(games.vote(origin, vote))).toBe('VOTING_CLOSED');
        expect(await votesOnPartition()).toHaveLength(0);
        expect(await counted()).toBe(0);
      });

      it('after the deadline, the close held: the resend of a vote never produced withdraws it, holds it, and counts as cast in time', async () => {
        const origin = await player();
        clock.now = DEADLINE - 100;
        await votedThroughDyingGateway(origin, false);
        clock.now = DEADLINE + 500;
        await engineHoldsTheClose();
        await expect(games.vote(origin, vote)).resolves.toEqual(vote);
        expect(await engineApplies()).toEqual(['COUNTED']);
        expect(await counted()).toBe(1);
      });

      it('a resend that withdrew its produced original after the deadline: VOTE_NOT_RECORDED until a replica confirms, never counted', async () => {
        const origin = await player();
        clock.now = DEADLINE - 100;
        await votedThroughDyingGateway(origin);
        clock.now = DEADLINE + 500;
        await engineCloses();
        // The withdrawal is to be confirmed by a replica this store does not have.
        games = gateway({ store: fixture.gatewayStore, withdrawalReplicas: 1 });
        expect(await refusalOf(games.vote(origin, vote))).toBe('VOTE_NOT_RECORDED');
        // The original is on the partition, withdrawn: the engine does not count it.
        expect(await engineApplies()).toEqual(['DUPLICATE']);
        expect(await refusalOf(games.vote(origin, vote))).toBe('VOTING_CLOSED');
        expect(await counted()).toBe(0);
      });

      it('the original produced, its resend withdrew it after the wait: the original is never counted, the resend is', async () => {
        const origin = await player();
        clock.now = DEADLINE - 10_000;
        await votedThroughDyingGateway(origin);
        clock.now = DEADLINE - 10_000 + fixture.produceTimeoutMs + 1_001;
        // The engine lags: the resend withdraws the unsettled original and is produced itself.
        await expect(games.vote(origin, vote)).resolves.toEqual(vote);
        expect(await engineApplies()).toEqual(['DUPLICATE', 'COUNTED']);
        expect(await counted()).toBe(1);
      });

      it("a resend that took the place of an original whose gateway froze: the original's late settlement is SUPERSEDED (VOTE_NOT_RECORDED), counted once", async () => {
        const origin = await player();
        clock.now = DEADLINE - 10_000;
        const frozen = dyingStore(store);
        const original = gateway({ store: frozen.store })
          .vote(origin, vote)
          .catch((error: unknown) => error);
        await frozen.died;
        clock.now += fixture.produceTimeoutMs + 1_001;
        await expect(games.vote(origin, vote)).resolves.toEqual(vote);
        frozen.resume();
        const answer = await original;
        expect(isAppError(answer) ? answer.reason : answer).toBe('VOTE_NOT_RECORDED');
        expect(await engineApplies()).toEqual(['DUPLICATE', 'COUNTED']);
        expect(await counted()).toBe(1);
      });
    });

    describe('the live store unavailable (a failover): VOTE_NOT_RECORDED, never INTERNAL', () => {
      it('answers VOTE_NOT_RECORDED while the store is unreachable; the retry after is acknowledged and counted once', async () => {
        const origin = await player();
        clock.now = DEADLINE - 5_000;
        fixture.outage.cut();
        try {
          expect(await refusalOf(games.vote(origin, vote))).toBe('VOTE_NOT_RECORDED');
          expect(await refusalOf(games.vote(origin, vote))).toBe('VOTE_NOT_RECORDED');
        } finally {
          fixture.outage.restore();
        }
        await waitFor(async () => {
          try {
            await games.vote(origin, vote);
            return true;
          } catch (error) {
            if (isAppError(error) && error.reason === 'VOTE_NOT_RECORDED') return false;
            throw error;
          }
        }, 'the retry acknowledged');
        expect(await engineApplies()).toEqual(['COUNTED']);
        expect(await counted()).toBe(1);
      });

      it('retries the settlement of a produced vote through a short outage, and acknowledges it', async () => {
        const origin = await player();
        clock.now = DEADLINE - 5_000;
        slow.meanwhile = async () => {
          fixture.outage.cut();
          setTimeout(() => fixture.outage.restore(), 300);
        };
        await expect(games.vote(origin, vote)).resolves.toEqual(vote);
        expect(await engineApplies()).toEqual(['COUNTED']);
        expect(await counted()).toBe(1);
      });

      it('a produced vote whose settlement outlasts the outage budget is VOTE_NOT_RECORDED; the retry gets its fate, counted once', async () => {
        const origin = await player();
        clock.now = DEADLINE - 5_000;
        slow.meanwhile = async () => fixture.outage.cut();
        try {
          expect(await refusalOf(games.vote(origin, vote))).toBe('VOTE_NOT_RECORDED');
        } finally {
          fixture.outage.restore();
        }
        slow.meanwhile = undefined;
        // The engine counted it meanwhile: the retry is acknowledged, not a second vote.
        expect(await engineApplies()).toEqual(['COUNTED']);
        await waitFor(async () => {
          try {
            await games.vote(origin, vote);
            return true;
          } catch (error) {
            if (isAppError(error) && error.reason === 'VOTE_NOT_RECORDED') return false;
            throw error;
          }
        }, 'the retry acknowledged');
        expect(await votesOnPartition()).toHaveLength(1);
        expect(await counted()).toBe(1);
      });
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
}

/** A `game.votes` message's event, or undefined for bytes that are none (a parked poison). */
function readableVote(value: Uint8Array | null | undefined) {
  try {
    return value ? fromBinary(GameVoteEventSchema, value) : undefined;
  } catch {
    return undefined;
  }
}
