import { createMemoryBus, type EventBus } from '@underdog/bus';
import { startRedisSentinelGroup, type RedisSentinelGroup } from '@underdog/harness';
import { createLogger, isAppError } from '@underdog/kit';
import { applyVote, gameKeys } from '@underdog/live-game';
import { topics } from '@underdog/platform';
import { GameVoteEventSchema, UserSchema, create, fromBinary } from '@underdog/proto';
import { createRedisStore, type LiveStore } from '@underdog/store';
import { waitFor } from '@underdog/test-support';
import { Registry } from 'prom-client';
import type { GatewayClients } from '../src/clients';
import { Games } from '../src/games';
import { RequestSession, SessionCookie, type RequestOrigin } from '../src/session';

/**
 * Votes through a real Sentinel failover (issue 29, the fault suite's Redis kill: 116 votes
 * answered INTERNAL): the gateway's live store follows the Sentinels; the primary is SIGKILLed
 * while players vote, each retrying a retryable answer as a client does. Every answer is an
 * acknowledgement or the retryable VOTE_NOT_RECORDED, never INTERNAL; every player ends
 * acknowledged, and the engine counts each player's vote once.
 */
describe('votes through a Redis Sentinel failover', () => {
  let group: RedisSentinelGroup;
  let store: LiveStore;
  let bus: EventBus;
  const TOURNAMENT = 'tournament-failover';
  const keys = gameKeys(TOURNAMENT);

  beforeAll(async () => {
    group = await startRedisSentinelGroup({ replicas: 1, sentinels: 1 });
    store = await createRedisStore({
      url: 'redis://127.0.0.1:1/0',
      sentinel: { sentinels: group.sentinels, name: group.name },
    });
    bus = createMemoryBus();
    await bus.ensureTopics([topics.gameVotes]);
  }, 60_000);

  afterAll(async () => {
    await bus?.close();
    await store?.close();
    await group?.stop();
  });

  function origin(id: string): RequestOrigin {
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

  it('answers a vote withdrawn after the votes began closing VOTING_CLOSED once the real replica confirmed the withdrawal (WAIT), VOTE_NOT_RECORDED when fewer replicas can', async () => {
    const late = gameKeys('tournament-withdrawal');
    const players = ['late-1', 'late-2'];
    await store.hSet(late.state, {
      tournamentStatus: 'live',
      gameId: 'game-1',
      phase: 'voting',
      round: '1',
      votingEndsAt: String(Date.now() + 120_000),
      votesEndOffset: '',
    });
    await store.hSet(
      late.players,
      Object.fromEntries(players.map((id) => [id, JSON.stringify({ userId: id })])),
    );
    await store.sAdd(late.alive, ...players);
    // The produce completes after the engine began closing the round's votes (a slow broker).
    const lateBus = {
      publish: async (topic: string, messages: Parameters<EventBus['publish']>[1]) => {
        const appended = await bus.publish(topic, messages);
        await store.hSet(late.state, { phase: 'voting_ended', votesEndOffset: 'closing' });
        return appended;
      },
    } as unknown as EventBus;
    const gateway = (withdrawalReplicas: number) =>
      new Games({
        clients: {} as Pick<GatewayClients, 'game'>,
        store,
        bus: lateBus,
        registry: new Registry(),
        logger: createLogger({ service: 'test', level: 'silent' }),
        withdrawalReplicas,
        withdrawalWaitMs: 2_000,
      });
    const answer = (games: Games, id: string) =>
      games
        .vote(origin(id), {
          tournamentId: 'tournament-withdrawal',
          roundNumber: 1,
          imageId: 'round-1-image-0',
        })
        .then(
          () => 'ack',
          (error: unknown) => (isAppError(error) ? error.reason : String(error)),
        );
    // One replica, attached and in sync, asked for one: it confirms the withdrawal; final.
    await group.replicated();
    expect(await answer(gateway(1), 'late-1')).toBe('VOTING_CLOSED');
    await store.hSet(late.state, { phase: 'voting', votesEndOffset: '' });
    // Asked for two, there is one: not confirmed in time, so retryable.
    expect(await answer(gateway(2), 'late-2')).toBe('VOTE_NOT_RECORDED');
  }, 30_000);

  it('answers VOTE_NOT_RECORDED (never INTERNAL) while the primary fails over; the retries are acknowledged and counted once', async () => {
    const players = Array.from({ length: 40 }, (_, i) => `player-${i}`);
    await store.hSet(keys.state, {
      tournamentStatus: 'live',
      gameId: 'game-1',
      phase: 'voting',
      round: '1',
      votingEndsAt: String(Date.now() + 120_000),
      votesEndOffset: '',
    });
    await store.hSet(
      keys.players,
      Object.fromEntries(players.map((id) => [id, JSON.stringify({ userId: id })])),
    );
    await store.sAdd(keys.alive, ...players);
    const games = new Games({
      clients: {} as Pick<GatewayClients, 'game'>,
      store,
      bus,
      registry: new Registry(),
      logger: createLogger({ service: 'test', level: 'silent' }),
    });

    const answers = new Map<string, string[]>();
    const vote = async (id: string, delayMs: number) => {
      // A schedule, not a wait for something: the votes are spread over the failover's seconds.
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const seen: string[] = [];
      answers.set(id, seen);
      const imageId = `round-1-image-${Number(id.split('-')[1]) % 4}`;
      for (;;) {
        try {
          await games.vote(origin(id), { tournamentId: TOURNAMENT, roundNumber: 1, imageId });
          seen.push('ack');
          return;
        } catch (error) {
          const code = isAppError(error) ? error.publicCode : `raw: ${String(error)}`;
          seen.push(code);
          if (code !== 'VOTE_NOT_RECORDED' || seen.length > 200) return;
          // A client's pause before it retries.
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    // A few votes before the kill, the rest spread over the failover (a few seconds).
    await group.replicated();
    const voting = players.map((id, i) => vote(id, i < 5 ? 0 : 100 + i * 100));
    await waitFor(
      () => players.slice(0, 5).every((id) => answers.get(id)?.includes('ack')),
      'the first five votes acknowledged before the kill',
    );
    await group.killPrimary();
    await Promise.all(voting);

    const all = [...answers.values()].flat();
    expect(all.filter((a) => a !== 'ack' && a !== 'VOTE_NOT_RECORDED')).toEqual([]);
    expect([...answers.values()].every((seen) => seen.at(-1) === 'ack')).toBe(true);
    // The outage was seen (else this proves nothing about it).
    expect(all.filter((a) => a === 'VOTE_NOT_RECORDED').length).toBeGreaterThan(0);

    // The engine applies every message on the partition: each player counted once. A marker
    // under the tournament's key, published after every vote, comes after them all on the
    // partition: once it is read, every vote message is (a late duplicate too).
    await bus.publish(topics.gameVotes.name, [
      { key: TOURNAMENT, value: new Uint8Array(), headers: { marker: 'end' } },
    ]);
    const messages: Array<{ voteId: string; userId: string; imageId: string; gameId: string }> = [];
    let markerRead = false;
    const subscription = await bus.subscribe({
      groupId: 'engine',
      topics: [topics.gameVotes.name],
      fromBeginning: true,
      handleBatch: async (batch) => {
        for (const message of batch) {
          if (message.headers.marker === 'end') {
            markerRead = true;
            continue;
          }
          const event = fromBinary(GameVoteEventSchema, message.value!);
          if (event.kind.case === 'voteCast') messages.push(event.kind.value);
        }
      },
    });
    await waitFor(() => markerRead, 'the marker after the votes');
    await subscription.stop();
    const replies: string[] = [];
    for (const m of messages) {
      replies.push(
        await store.run(
          applyVote,
          [
            keys.state,
            keys.alive,
            keys.ballots(1),
            keys.tally(1),
            keys.voteIds(1),
            keys.reserved(1),
          ],
          [
            m.gameId,
            m.voteId,
            m.userId,
            1,
            m.imageId,
            0,
            JSON.stringify({ imageId: m.imageId, castAt: 0, voteId: m.voteId, username: m.userId }),
          ],
        ),
      );
    }
    expect(replies.filter((r) => r === 'COUNTED')).toHaveLength(players.length);
    expect(Object.keys(await store.hGetAll(keys.ballots(1))).sort()).toEqual([...players].sort());
    expect(Number(await store.hGet(keys.state, 'totalVotes'))).toBe(players.length);
  }, 120_000);
});
