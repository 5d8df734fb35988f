import { randomUUID } from 'node:crypto';
import type { EventBus } from '@underdog/bus';
import { AppError, createLogger, isAppError } from '@underdog/kit';
import { VOTING_GRACE_MS, applyVote, gameKeys } from '@underdog/live-game';
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
import type { LiveStore } from '@underdog/store';
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
    await this.bus.publish(topic, messages);
    await this.meanwhile?.();
  };
}

export interface VoteSettlementFixture {
  store: LiveStore;
  bus: EventBus;
  /** How long a produce may take here before VOTE_NOT_RECORDED (a real broker needs more). */
  produceTimeoutMs: number;
  cleanup(): Promise<void>;
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
      games = new Games({
        clients: {} as Pick<GatewayClients, 'game'>,
        store,
        bus: slow as unknown as EventBus,
        registry,
        logger: createLogger({ service: 'test', level: 'silent' }),
        clock: { now: () => new Date(clock.now) },
        produceTimeoutMs: fixture.produceTimeoutMs,
      });
      await store.hSet(keys.state, {
        tournamentStatus: 'live',
        gameId: 'game-1',
        phase: 'voting',
        round: '1',
        votingEndsAt: String(DEADLINE),
        votesEndOffset: '',
      });
    });
    afterEach(() => fixture.cleanup());

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

    /** Every vote of the tournament on its partition, in order (the topic may be shared). */
    async function votesOnPartition(): Promise<VoteCast[]> {
      const partition = await bus.partitionOf(topics.gameVotes.name, TOURNAMENT);
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
            const event = fromBinary(GameVoteEventSchema, message.value!);
            if (event.tournamentId === TOURNAMENT && event.kind.case === 'voteCast') {
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
              keys.ballots(round),
              keys.tally(round),
              keys.voteIds(round),
              keys.reserved(round),
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
      expect(await store.hGetAll(keys.tally(1))).toEqual({ 'round-1-image-2': '1' });
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

    it('keeps the first vote of a player acknowledged: a second one is ALREADY_VOTED, never a second message', async () => {
      const origin = await player();
      clock.now = DEADLINE - 10;
      await games.vote(origin, vote);
      expect(await refusalOf(games.vote(origin, vote))).toBe('ALREADY_VOTED');
      expect(await votesOnPartition()).toHaveLength(1);
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
