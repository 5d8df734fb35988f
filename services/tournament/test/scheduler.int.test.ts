import { testClock, testContext } from '@underdog/test-support';
import { randomUUID } from 'node:crypto';
import { createKafkaBus } from '@underdog/bus';
import { testInfra } from '@underdog/harness';
import { ComponentGroup, createLogger, createMetricsRegistry } from '@underdog/kit';
import { createDistributedInfrastructure, topics } from '@underdog/platform';
import {
  EventHeader,
  TournamentService,
  TournamentStatus,
  timestampFromDate,
} from '@underdog/proto';
import { createClient, createInProcessTransport } from '@underdog/rpc';
import { tournamentConfig } from '../src/config';
import { createTournamentModule, type TournamentModule } from '../src/service';
import { HOUR, actors, inFuture, observeLifecycle, waitFor } from './support';

const logger = createLogger({ service: 'tournament-int-test', level: 'silent' });
const registry = createMetricsRegistry('tournament-int-test');
const LIVE = 'underdog.events.v1.TournamentLive';
const MARKER = 'test.Marker';
// Both replicas read one clock the test moves: a start is a moment the test chooses, not a race.
const clock = testClock(new Date());

interface Replica {
  module: TournamentModule;
  group: ComponentGroup;
}

/**
 * One replica as its process would run it: its own Kafka client and MongoDB connection, its
 * scheduler polling on its own timer. Only the RPC transport is in-process, and the clock is the
 * test's (shared by both replicas, as the server clocks are in sync).
 */
async function startReplica(name: string, mongoDb: string): Promise<Replica> {
  const infra = testInfra();
  const infrastructure = await createDistributedInfrastructure(
    {
      service: 'tournament',
      instanceId: name,
      needs: ['documents', 'bus'],
      kafkaBrokers: infra.kafkaBrokers,
      mongoUrl: infra.mongoUrl,
      mongoDb,
    },
    logger,
  );
  const module = createTournamentModule(
    {
      ...testContext(infrastructure, { logger: logger.child({ replica: name }), instanceId: name }),
      registry,
    },
    tournamentConfig({}),
    { clock },
  );
  const group = new ComponentGroup(logger, [...infrastructure.components, ...module.components]);
  await group.start();
  return { module, group };
}

describe('the scheduler with two replicas on Kafka and a MongoDB-wire server', () => {
  const mongoDb = `tournament-scheduler-${randomUUID().slice(0, 8)}`;
  const observerBus = createKafkaBus({
    brokers: testInfra().kafkaBrokers,
    clientId: 'tournament-int-observer',
    logger,
  });
  let replicas: Replica[] = [];

  beforeAll(async () => {
    await observerBus.ensureTopics([topics.tournamentLifecycle]);
    // One after the other: both create the topics they need at start.
    replicas.push(await startReplica('replica-a', mongoDb));
    replicas.push(await startReplica('replica-b', mongoDb));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.group.stop()));
    replicas = [];
    await observerBus.close();
  });

  /**
   * Proves no duplicate is on its way, without sleeping. What could publish a second
   * TournamentLive runs to its end first (a scheduler pass and an outbox sweep on both
   * replicas); then a marker is published under each tournament's key (the same partition, read
   * in order) and awaited: an event those published is before its marker. (The clock is not
   * moved past the outbox's retry age: a sweep then may publish an item again whose first
   * publication is not marked done yet — the same event id, which consumers drop.)
   */
  async function nothingMoreAfter(
    observer: Awaited<ReturnType<typeof observeLifecycle>>,
    ids: readonly string[],
  ) {
    for (const { module } of replicas) {
      await module.scheduler.startDueTournaments();
      await module.outbox.sweep();
    }
    await observerBus.publish(
      topics.tournamentLifecycle.name,
      ids.map((id) => ({
        key: id,
        value: new Uint8Array(),
        headers: { [EventHeader.type]: MARKER, [EventHeader.id]: `marker:${id}` },
      })),
    );
    await waitFor(
      () =>
        observer.events.filter((e) => e.type === MARKER && ids.includes(e.key)).length ===
        ids.length,
      'the markers',
      20_000,
    );
  }

  it('turns tournaments live once, at their start and not before, with one TournamentLive each', async () => {
    const observer = await observeLifecycle(observerBus, `tournament-int-${randomUUID()}`);
    try {
      const routes = replicas[0]!.module.registerRpc!;
      const client = createClient(TournamentService, createInProcessTransport(routes));
      const startAt = inFuture(clock, HOUR);
      const ids: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        const { tournament } = await client.createTournament({
          actor: actors.admin(),
          title: `Race ${i}`,
          startAt: timestampFromDate(startAt),
        });
        ids.push(tournament!.id);
      }

      // A second before the start, a pass on each replica starts none of them.
      clock.set(new Date(startAt.getTime() - 1_000));
      for (const { module } of replicas) await module.scheduler.startDueTournaments();
      for (const id of ids) {
        expect((await client.getTournament({ id })).tournament!.status).toBe(
          TournamentStatus.UPCOMING,
        );
      }

      // At the start, the replicas' own polls start them; the clock stands still meanwhile.
      clock.set(startAt);
      await waitFor(
        async () => {
          const statuses = await Promise.all(
            ids.map(async (id) => (await client.getTournament({ id })).tournament!.status),
          );
          return statuses.every((status) => status === TournamentStatus.LIVE);
        },
        'every tournament to go live',
        15_000,
      );
      // The winning replica recorded the transition at the start, on the server clock.
      for (const id of ids) {
        expect((await replicas[1]!.module.tournaments.get(id)).updatedAt).toEqual(startAt);
      }

      const liveEvents = () =>
        observer.events.filter((e) => e.type === LIVE && ids.includes(e.key));
      await waitFor(() => liveEvents().length >= ids.length, 'the live events', 20_000);
      await nothingMoreAfter(observer, ids);
      expect(
        liveEvents()
          .map((e) => e.key)
          .sort(),
      ).toEqual([...ids].sort());
      for (const event of liveEvents()) {
        expect(event.id).toBe(`${event.key}:live`);
        expect(event.event.kind).toMatchObject({
          case: 'live',
          value: { tournament: { id: event.key, status: TournamentStatus.LIVE } },
        });
      }
    } finally {
      await observer.stop();
    }
  }, 90_000);

  it('lets exactly one replica start each tournament when their passes run at the same moment', async () => {
    const observer = await observeLifecycle(observerBus, `tournament-int-${randomUUID()}`);
    try {
      const [a, b] = replicas.map((replica) => replica.module);
      const routes = a!.registerRpc!;
      const client = createClient(TournamentService, createInProcessTransport(routes));
      const startAt = inFuture(clock, HOUR);
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const { tournament } = await client.createTournament({
          actor: actors.admin(),
          title: `Photo finish ${i}`,
          startAt: timestampFromDate(startAt),
        });
        ids.push(tournament!.id);
      }
      clock.set(startAt);
      // Extra passes on both replicas at once, racing each other and the running schedulers.
      const started = (
        await Promise.all([a, b, a, b].map((module) => module!.scheduler.startDueTournaments()))
      ).flat();
      const startedIds = started.map((t) => t.id).filter((id) => ids.includes(id));
      expect(new Set(startedIds).size).toBe(startedIds.length);

      const liveEvents = () =>
        observer.events.filter((e) => e.type === LIVE && ids.includes(e.key));
      await waitFor(() => liveEvents().length >= ids.length, 'the live events', 20_000);
      await nothingMoreAfter(observer, ids);
      expect(
        liveEvents()
          .map((e) => e.key)
          .sort(),
      ).toEqual([...ids].sort());
    } finally {
      await observer.stop();
    }
  }, 90_000);
});
