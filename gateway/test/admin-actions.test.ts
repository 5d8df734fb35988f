import { createMemoryBus, type EventBus } from '@underdog/bus';
import { createMetricsRegistry, runWithRequestId, type Logger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  AdminActionEventSchema,
  EventHeader,
  create,
  fromBinary,
  TournamentSchema,
  type AdminActionEvent,
} from '@underdog/proto';
import { actors, silentLogger, testClock, waitFor } from '@underdog/test-support';
import { AdminActions } from '../src/admin-actions';
import type { GatewayClients } from '../src/clients';

/**
 * The audit log's one producer: which calls are published, with what, and what happens when
 * the bus refuses (the admin's call still succeeds; retried; loud and counted when lost).
 */

const tournament = create(TournamentSchema, { id: 't-1', title: 'Friday Cup' });

/** Stand-ins for the services' clients: only the calls these tests make. */
function stubClients(): GatewayClients {
  return {
    tournament: {
      createTournament: async () => ({ tournament }),
      deleteTournament: async () => ({}),
      getTournament: async () => ({ tournament }),
      listTournaments: async () => ({ tournaments: [tournament] }),
      updateTournament: async () => {
        throw new Error('the service refused');
      },
      confirmPrizePaid: async (request: { tournamentId?: string }) => ({
        payment: { tournamentId: request.tournamentId, winnerUserId: 'u-1', winnerUsername: 'ann' },
        alreadyConfirmed: request.tournamentId === 'paid-before',
      }),
    },
    ads: {},
    game: {
      disqualifyParticipant: async () => ({ duringGame: true, effectiveRound: 2 }),
    },
    auth: {},
    notification: {},
  } as unknown as GatewayClients;
}

async function collect(bus: EventBus) {
  const seen: { id: string; event: AdminActionEvent; requestId?: string }[] = [];
  await bus.subscribe({
    groupId: `test-${Math.random()}`,
    topics: [topics.adminActions.name],
    fromBeginning: true,
    handleBatch: async (batch) => {
      for (const message of batch) {
        seen.push({
          id: message.headers[EventHeader.id] ?? '',
          event: fromBinary(AdminActionEventSchema, message.value ?? new Uint8Array()),
          requestId: message.headers['request-id'],
        });
      }
    },
  });
  return seen;
}

/** A bus whose publish fails `failures` times, then works. */
function flakyBus(bus: EventBus, failures: number): EventBus {
  let left = failures;
  return Object.assign(Object.create(bus) as EventBus, {
    publish: (topic: string, messages: Parameters<EventBus['publish']>[1]) => {
      if (left > 0) {
        left -= 1;
        return Promise.reject(new Error('broker down'));
      }
      return bus.publish(topic, messages);
    },
  });
}

function recordingLogger() {
  const errors: { fields: Record<string, unknown>; message: string }[] = [];
  const logger = silentLogger('admin-actions-test');
  const recording = Object.assign(Object.create(logger) as Logger, {
    error: (fields: Record<string, unknown>, message: string) => errors.push({ fields, message }),
  });
  return { logger: recording, errors };
}

describe('AdminActions', () => {
  const clock = testClock(new Date('2030-01-01T12:00:00.000Z'));

  it('publishes one event per successful admin change, with who, when, what and the request id', async () => {
    const bus = createMemoryBus();
    const seen = await collect(bus);
    const clients = new AdminActions({
      bus,
      logger: silentLogger('t'),
      registry: createMetricsRegistry('t'),
      clock,
    }).wrap(stubClients());
    const admin = actors.admin();

    await runWithRequestId('req-42', () =>
      clients.tournament.createTournament({ actor: admin, title: 'Friday Cup' }),
    );
    await clients.tournament.deleteTournament({ actor: admin, id: 't-1' });
    await clients.tournament.confirmPrizePaid({ actor: admin, tournamentId: 't-1' });
    await clients.game.disqualifyParticipant({
      actor: admin,
      tournamentId: 't-1',
      userId: 'u-9',
      reason: 'One of a ring',
    });
    // Not audited: a read, a call the service refused, a repeated confirmation.
    await clients.tournament.listTournaments({});
    await expect(clients.tournament.updateTournament({ actor: admin, id: 't-1' })).rejects.toThrow(
      'the service refused',
    );
    await clients.tournament.confirmPrizePaid({ actor: admin, tournamentId: 'paid-before' });

    await waitFor(() => seen.length >= 4, 'four events');
    expect(seen.map(({ event }) => [event.kind.case, event.summary])).toEqual([
      ['tournamentCreated', 'Created tournament "Friday Cup"'],
      ['tournamentDeleted', 'Deleted tournament "Friday Cup"'],
      ['prizePaidConfirmed', 'Confirmed the prize of "Friday Cup" paid to ann'],
      [
        'participantDisqualified',
        'Disqualified user u-9 from tournament t-1 (out after round 2): One of a ring',
      ],
    ]);
    expect(seen[3]?.event.kind.value).toMatchObject({
      tournamentId: 't-1',
      userId: 'u-9',
      reason: 'One of a ring',
      duringGame: true,
      effectiveRound: 2,
    });
    expect(seen[0]?.event).toMatchObject({
      actorUserId: 'admin-1',
      actorUsername: 'admin',
      requestId: 'req-42',
      kind: { value: { tournamentId: 't-1', title: 'Friday Cup' } },
    });
    expect(seen[0]?.requestId).toBe('req-42');
    expect(seen[0]?.event.occurredAt?.seconds).toBe(BigInt(clock.now().getTime() / 1000));
    expect(new Set(seen.map(({ id }) => id)).size).toBe(4);
    // A later marker proves nothing more was published for the unaudited calls.
    await clients.tournament.deleteTournament({ actor: admin, id: 'marker' });
    await waitFor(() => seen.length >= 5, 'the marker');
    expect(seen).toHaveLength(5);
  });

  it('never fails the admin’s call on a bus failure: retried until the bus takes it', async () => {
    const bus = createMemoryBus();
    const seen = await collect(bus);
    const registry = createMetricsRegistry('t');
    const clients = new AdminActions({
      bus: flakyBus(bus, 2),
      logger: silentLogger('t'),
      registry,
      clock,
      retry: { attempts: 4, firstDelayMs: 1 },
    }).wrap(stubClients());
    const answer = await clients.tournament.createTournament({ actor: actors.admin() });
    expect(answer.tournament?.id).toBe('t-1');
    await waitFor(() => seen.length >= 1, 'the retried event');
    expect(seen[0]?.event.kind.case).toBe('tournamentCreated');
    const published = await registry.getSingleMetricAsString(
      'underdog_admin_actions_published_total',
    );
    expect(published).toMatch(/ 1$/m);
  });

  it('logs an action lost after every retry at error level, with its whole event, and counts it', async () => {
    const bus = createMemoryBus();
    const registry = createMetricsRegistry('t');
    const { logger, errors } = recordingLogger();
    const clients = new AdminActions({
      bus: flakyBus(bus, 100),
      logger,
      registry,
      clock,
      retry: { attempts: 3, firstDelayMs: 1 },
    }).wrap(stubClients());
    await clients.tournament.createTournament({ actor: actors.admin(), title: 'Friday Cup' });
    await waitFor(() => errors.length === 1, 'the loud log line');
    expect(errors[0]?.message).toMatch(/ADMIN ACTION NOT IN THE AUDIT LOG/);
    expect(errors[0]?.fields).toMatchObject({
      action: 'tournamentCreated',
      actorUserId: 'admin-1',
      summary: 'Created tournament "Friday Cup"',
    });
    expect(errors[0]?.fields.eventId).toEqual(expect.any(String));
    expect(
      await registry.getSingleMetricAsString('underdog_admin_actions_unpublished_total'),
    ).toMatch(/ 1$/m);
  });
});
