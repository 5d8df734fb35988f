import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createKafkaBus, type EventBus } from '@underdog/bus';
import { gameKeys, parseGameState } from '@underdog/live-game';
import { allTopics } from '@underdog/platform';
import { createRedisStore, type LiveStore } from '@underdog/store';
import { startRestartableRedis, type RestartableRedis } from '@underdog/harness';
import { startTcpProxy, type TcpProxy } from '@underdog/test-support';
import { publishRoundOneVotes, silentLogger, waitFor } from './support';
import {
  expectCydWonAlone,
  firstEvent,
  openTournament,
  startEngineOnStore,
  startGame,
  type EngineOnStore,
  type GameEventRecorder,
} from './fault-support';

/** A command to one of the test's own Redis servers, by port (REPLICAOF has no store method). */
function redisCli(port: number, ...args: string[]): string {
  return execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).trim();
}

const portOf = (redis: RestartableRedis) => Number(new URL(redis.url).port);

/** The recorder's events of one tournament (on a shared broker, other tests' events pass by). */
const eventsOf = (recorder: GameEventRecorder, tournamentId: string): GameEventRecorder => ({
  get events() {
    return recorder.events.filter((event) => event.tournamentId === tournamentId);
  },
  stop: () => recorder.stop(),
});

async function totalVotes(store: LiveStore, tournamentId: string): Promise<number> {
  return parseGameState(await store.hGetAll(gameKeys(tournamentId).state))?.totalVotes ?? -1;
}

/**
 * A failover that loses writes: Redis replication is asynchronous, so the replica promoted when
 * the primary dies may miss the last votes the engine applied — and Kafka's committed offset has
 * moved past them. The engine must apply them again, from the applied mark the replica holds.
 *
 * The gap is made exactly: a replica follows the primary through round 1's first batch of votes,
 * is detached (it stops replicating), the engine applies a second batch on the primary (the bus
 * commits it), and then the engine's connection is moved to the detached replica, as a promoted
 * replica that missed that batch. Real Redis (two of the test's own), with the engine on the
 * in-memory bus and on the harness's Kafka (its consumer groups made the test's own by
 * `GAME_KAFKA_GROUP_PREFIX`).
 */
describe.each([
  ['the in-memory bus', () => undefined],
  [
    'Kafka',
    () =>
      createKafkaBus({
        brokers: (process.env.UNDERDOG_TEST_KAFKA_BROKERS ?? '').split(','),
        clientId: 'store-gap-test',
        logger: silentLogger,
      }),
  ],
] as Array<[string, () => EventBus | undefined]>)(
  'a game whose Redis fails over to a replica that missed the last applied votes (%s)',
  (_name, createBus) => {
    let primary: RestartableRedis;
    let replica: RestartableRedis;
    const target = { host: '127.0.0.1', port: 0 };
    let proxy: TcpProxy;
    let store: LiveStore;
    let replicaStore: LiveStore;
    let running: EngineOnStore;
    let kafka: EventBus | undefined;

    beforeAll(async () => {
      [primary, replica] = await Promise.all([
        startRestartableRedis({ appendfsync: 'none' }),
        startRestartableRedis({ appendfsync: 'none' }),
      ]);
      target.port = portOf(primary);
      // The proxy reads `target` on every new connection: changing it moves the engine's store.
      proxy = await startTcpProxy(target);
      store = await createRedisStore({ url: `redis://127.0.0.1:${proxy.port}` });
      replicaStore = await createRedisStore({ url: replica.url });
      kafka = createBus();
      await kafka?.ensureTopics(allTopics);
      const unique = randomUUID().slice(0, 8);
      running = await startEngineOnStore(
        store,
        `gap-recorder-${unique}`,
        { GAME_VOTES_MARK_CHECK_MS: '100', GAME_KAFKA_GROUP_PREFIX: `gap-${unique}-` },
        kafka,
      );
    }, 60_000);

    afterAll(async () => {
      await running?.stop();
      await kafka?.close();
      await store?.close();
      await replicaStore?.close();
      await proxy?.close();
      await Promise.all([primary?.stop(), replica?.stop()]);
    });

    it('applies the votes the replica missed again, once, and the game ends as they say', async () => {
      const { bus, engine } = running;
      redisCli(portOf(replica), 'REPLICAOF', '127.0.0.1', String(portOf(primary)));
      await waitFor(
        () => redisCli(portOf(replica), 'INFO', 'replication').includes('master_link_status:up'),
        'the replica to follow the primary',
      );

      const tournamentId = randomUUID();
      const recorder = eventsOf(running.recorder, tournamentId);
      await openTournament(bus, engine, tournamentId, 8, ['ann', 'bob', 'cyd']);
      const gameId = await startGame(bus, recorder, tournamentId, 8);
      await publishRoundOneVotes(bus, tournamentId, gameId, [
        ['ann', 1],
        ['bob', 1],
      ]);
      await waitFor(async () => (await totalVotes(store, tournamentId)) === 2, 'two votes counted');
      await waitFor(
        async () => (await totalVotes(replicaStore, tournamentId)) === 2,
        'the replica to have them',
      );

      // The replica stops replicating; cyd's vote is applied on the primary only.
      redisCli(portOf(replica), 'REPLICAOF', 'NO', 'ONE');
      await publishRoundOneVotes(bus, tournamentId, gameId, [['cyd', 2]]);
      await waitFor(async () => (await totalVotes(store, tournamentId)) === 3, 'cyd counted');
      expect(await totalVotes(replicaStore, tournamentId)).toBe(2);

      // The failover: the engine's store now reaches the replica, which lacks cyd's vote.
      target.port = portOf(replica);
      proxy.cut();
      proxy.restore();

      await waitFor(
        async () => (await totalVotes(replicaStore, tournamentId)) === 3,
        "cyd's vote applied again on the promoted replica",
        10_000,
      );
      await waitFor(
        () => firstEvent(recorder, 'gameEnded') !== undefined,
        'the game to end',
        30_000,
      );
      // Image 2 (cyd's) is the least popular only if his vote counted; counted once, not twice.
      expectCydWonAlone(recorder);
      const tally = await replicaStore.hGetAll(gameKeys(tournamentId).tally(1));
      expect(tally).toEqual({ 'round-1-image-1': '2', 'round-1-image-2': '1' });
    }, 90_000);
  },
);
