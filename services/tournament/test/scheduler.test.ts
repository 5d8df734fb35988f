import type { EventBus } from '@underdog/bus';
import { TournamentStatus } from '@underdog/proto';
import {
  HOUR,
  MINUTE,
  actors,
  deliveredSoFar,
  inFuture,
  startHarness,
  timestampAt,
  waitFor,
  type Harness,
  type HarnessOptions,
} from './support';

const LIVE = 'underdog.events.v1.TournamentLive';
const FINISHED = 'underdog.events.v1.TournamentFinished';

/** A bus whose broker can be taken down: publishing fails while it is. */
function outage() {
  const state = { down: false };
  const wrap = (bus: EventBus): EventBus => ({
    ensureTopics: (specs) => bus.ensureTopics(specs),
    publish: async (topic, messages) => {
      if (state.down) throw new Error('broker unreachable');
      return bus.publish(topic, messages);
    },
    subscribe: (options) => bus.subscribe(options),
    partitionOf: (topic, key) => bus.partitionOf(topic, key),
    endOffset: (topic, partition) => bus.endOffset(topic, partition),
    readRange: (...args) => bus.readRange(...args),
    ping: () => bus.ping(),
    close: () => bus.close(),
  });
  return { state, wrap };
}

describe('the scheduler', () => {
  let h: Harness;
  let tournamentId: string;
  let startAt: Date;

  async function start(options: HarnessOptions = {}) {
    h = await startHarness(options);
    startAt = inFuture(h.clock, HOUR);
    const { tournament } = await h.client.createTournament({
      actor: actors.admin(),
      title: 'Friday night',
      startAt: timestampAt(startAt),
    });
    tournamentId = tournament!.id;
  }
  afterEach(() => h.stop());

  const status = async () =>
    (await h.client.getTournament({ id: tournamentId })).tournament!.status;
  const eventsOfType = (type: string) =>
    h.events.filter((e) => e.key === tournamentId && e.type === type);
  // Every event published so far is in `h.events` (a marker under the key, not a sleep).
  const settle = () => deliveredSoFar(h, tournamentId);

  it('moves a tournament to live at its start, not before', async () => {
    await start();
    h.clock.set(new Date(startAt.getTime() - 1));
    expect(await h.module.scheduler.startDueTournaments()).toEqual([]);
    expect(await status()).toBe(TournamentStatus.UPCOMING);

    h.clock.set(startAt);
    const started = await h.module.scheduler.startDueTournaments();
    expect(started.map((t) => t.id)).toEqual([tournamentId]);
    expect(await status()).toBe(TournamentStatus.LIVE);
  });

  it('publishes one TournamentLive with a deterministic event id and the live snapshot', async () => {
    await start();
    h.clock.set(startAt);
    await h.module.scheduler.startDueTournaments();
    await waitFor(() => eventsOfType(LIVE).length === 1, 'the live event');
    const [live] = eventsOfType(LIVE);
    expect(live!.id).toBe(`${tournamentId}:live`);
    expect(live!.event.kind).toMatchObject({
      case: 'live',
      value: { tournament: { id: tournamentId, status: TournamentStatus.LIVE } },
    });

    h.clock.advance(MINUTE);
    expect(await h.module.scheduler.startDueTournaments()).toEqual([]);
    await h.module.outbox.sweep();
    await settle();
    expect(eventsOfType(LIVE)).toHaveLength(1);
  });

  it('starts a tournament once when several replicas race for it', async () => {
    await start();
    const replicas = [h.module, h.replica().module, h.replica().module];
    h.clock.set(new Date(startAt.getTime() + 10));
    const started = await Promise.all(
      [...replicas, ...replicas].map((module) => module.scheduler.startDueTournaments()),
    );
    expect(started.flat().map((t) => t.id)).toEqual([tournamentId]);
    await settle();
    expect(eventsOfType(LIVE)).toHaveLength(1);
  });

  it('starts tournaments due at the same moment together, not one after another', async () => {
    // Each live event's publish is held until the test opens the gate: one after another, the
    // second would not even be begun while the first waits, so three are never in flight.
    let inFlight = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const heldLive = (bus: EventBus): EventBus => ({
      ...outage().wrap(bus),
      publish: async (topic, messages) => {
        if (!messages.some((message) => message.headers?.['event-type'] === LIVE)) {
          return bus.publish(topic, messages);
        }
        inFlight += 1;
        await gate;
        return bus.publish(topic, messages);
      },
    });
    await start({ bus: heldLive });
    const others = await Promise.all(
      ['Saturday night', 'Sunday night'].map(async (title) => {
        const { tournament } = await h.client.createTournament({
          actor: actors.admin(),
          title,
          startAt: timestampAt(startAt),
        });
        return tournament!.id;
      }),
    );
    h.clock.set(startAt);
    const starting = h.module.scheduler.startDueTournaments();
    try {
      await waitFor(() => inFlight === 3, {
        message: 'the three live events in flight at once',
        timeoutMs: 10_000,
      });
    } finally {
      open();
    }
    const started = await starting;
    expect(started.map((t) => t.id).sort()).toEqual([tournamentId, ...others].sort());
  });

  it('never starts a deleted tournament', async () => {
    await start();
    await h.client.deleteTournament({ actor: actors.admin(), id: tournamentId });
    h.clock.set(startAt);
    expect(await h.module.scheduler.startDueTournaments()).toEqual([]);
    await settle();
    expect(eventsOfType(LIVE)).toEqual([]);
  });

  it('starts a tournament at its moved start time', async () => {
    await start();
    const later = new Date(startAt.getTime() + HOUR);
    await h.client.updateTournament({
      actor: actors.admin(),
      id: tournamentId,
      title: 'Friday night',
      startAt: timestampAt(later),
    });
    h.clock.set(startAt);
    expect(await h.module.scheduler.startDueTournaments()).toEqual([]);
    h.clock.set(later);
    expect(await h.module.scheduler.startDueTournaments()).toHaveLength(1);
  });

  describe('when the live event cannot be published right away', () => {
    it('republishes it later, once, with the same event id', async () => {
      const broker = outage();
      await start({ bus: broker.wrap });
      broker.state.down = true;
      h.clock.set(startAt);
      await h.module.scheduler.startDueTournaments();
      expect(await status()).toBe(TournamentStatus.LIVE);

      broker.state.down = false;
      // Not before the retry delay, so an in-flight publish is not duplicated.
      await h.module.outbox.sweep();
      await settle();
      expect(eventsOfType(LIVE)).toEqual([]);

      h.clock.advance(5_000);
      expect(await h.module.outbox.sweep()).toBe(1);
      await waitFor(() => eventsOfType(LIVE).length === 1, 'the republished live event');
      expect(eventsOfType(LIVE)[0]!.id).toBe(`${tournamentId}:live`);

      h.clock.advance(5_000);
      expect(await h.module.outbox.sweep()).toBe(0);
      await settle();
      expect(eventsOfType(LIVE)).toHaveLength(1);
    });

    it('keeps a pending live event when an admin edits the live tournament', async () => {
      const broker = outage();
      await start({ bus: broker.wrap });
      broker.state.down = true;
      h.clock.set(startAt);
      await h.module.scheduler.startDueTournaments();
      h.clock.advance(1_000);
      await h.client.updateTournament({
        actor: actors.admin(),
        id: tournamentId,
        title: 'Renamed while live',
        startAt: timestampAt(startAt),
      });
      broker.state.down = false;
      h.clock.advance(5_000);
      expect(await h.module.outbox.sweep()).toBe(2);
      const afterCreation = () =>
        h.events.filter((e) => e.key === tournamentId && e.event.kind.case !== 'created');
      await waitFor(() => afterCreation().length === 2, 'the live and updated events');
      expect(afterCreation().map((e) => e.type)).toEqual([
        LIVE,
        'underdog.events.v1.TournamentUpdated',
      ]);
    });
  });

  it('answers an admin change even when Kafka refuses its event, and publishes it later', async () => {
    const broker = outage();
    await start({ bus: broker.wrap });
    broker.state.down = true;
    const { tournament } = await h.client.createTournament({
      actor: actors.admin(),
      title: 'Created during an outage',
      startAt: timestampAt(inFuture(h.clock, HOUR)),
    });
    broker.state.down = false;
    h.clock.advance(5_000);
    await h.module.outbox.sweep();
    await waitFor(
      () => h.events.some((e) => e.key === tournament!.id && e.event.kind.case === 'created'),
      'the created event',
    );
  });

  describe('finishing', () => {
    it('moves a live tournament to finished once and publishes TournamentFinished once', async () => {
      await start();
      expect(await h.module.tournaments.markFinished(tournamentId)).toBeNull();
      h.clock.set(startAt);
      await h.module.scheduler.startDueTournaments();
      h.clock.advance(10 * MINUTE);

      const finished = await h.module.tournaments.markFinished(tournamentId);
      expect(finished).toMatchObject({ id: tournamentId, status: 'finished' });
      expect(await h.module.tournaments.markFinished(tournamentId)).toBeNull();
      expect(await status()).toBe(TournamentStatus.FINISHED);

      await waitFor(() => eventsOfType(FINISHED).length === 1, 'the finished event');
      await settle();
      expect(eventsOfType(FINISHED)).toHaveLength(1);
      expect(eventsOfType(FINISHED)[0]!.id).toBe(`${tournamentId}:finished`);
    });
  });

  it('runs by itself as a component, starting tournaments as the clock reaches them', async () => {
    await start({ startComponents: true, env: { TOURNAMENT_SCHEDULER_POLL_MS: '20' } });
    await settle();
    expect(await status()).toBe(TournamentStatus.UPCOMING);
    h.clock.set(startAt);
    await waitFor(
      async () => (await status()) === TournamentStatus.LIVE,
      'the tournament to go live',
      2_000,
    );
    await waitFor(() => eventsOfType(LIVE).length === 1, 'the live event');
    await settle();
    expect(eventsOfType(LIVE)).toHaveLength(1);
  });
});
