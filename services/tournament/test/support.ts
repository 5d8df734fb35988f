import { TOTAL_ROUNDS } from '@underdog/rules';
import type { EventBus } from '@underdog/bus';
import { ComponentGroup, createMetricsRegistry, type Logger } from '@underdog/kit';
import { createMemoryInfrastructure, topics, type Infrastructure } from '@underdog/platform';
import {
  EventHeader,
  TournamentLifecycleEventSchema,
  TournamentService,
  fromBinary,
  timestampFromDate,
  type TournamentLifecycleEvent,
} from '@underdog/proto';
import { createClient, createInProcessTransport, type Client } from '@underdog/rpc';
import {
  silentLogger,
  testClock,
  testContext,
  waitFor,
  type TestClock,
} from '@underdog/test-support';
import { tournamentConfig } from '../src/config';
import { createTournamentModule, type TournamentModule } from '../src/service';

export {
  actors,
  failureOf,
  HOUR,
  MINUTE,
  testClock,
  waitFor,
  type TestClock,
} from '@underdog/test-support';

export const logger: Logger = silentLogger('tournament-test');
const registry = createMetricsRegistry('tournament-test');

export const inFuture = (clock: TestClock, ms: number) => new Date(clock.now().getTime() + ms);
export const timestampAt = (date: Date) => timestampFromDate(date);

/** A full set of valid choices, option `option(round)` in each round. */
export function fullChoices(option: (round: number) => string = (round) => String(round % 4)) {
  return Array.from({ length: TOTAL_ROUNDS }, (_, i) => ({
    roundNumber: i + 1,
    selectedImageId: option(i + 1),
  }));
}

export interface ObservedEvent {
  key: string;
  type: string | undefined;
  id: string | undefined;
  event: TournamentLifecycleEvent;
}

/** Collects every `tournament.lifecycle` event from the beginning, in a group of its own. */
export async function observeLifecycle(bus: EventBus, groupId: string) {
  const events: ObservedEvent[] = [];
  const subscription = await bus.subscribe({
    groupId,
    topics: [topics.tournamentLifecycle.name],
    fromBeginning: true,
    handleBatch: async (batch) => {
      for (const message of batch) {
        events.push({
          key: message.key,
          type: message.headers[EventHeader.type],
          id: message.headers[EventHeader.id],
          event: fromBinary(TournamentLifecycleEventSchema, message.value ?? new Uint8Array()),
        });
      }
    },
  });
  return { events, stop: () => subscription.stop() };
}

const MARKER = 'test.Marker';
let markers = 0;

/**
 * Waits until every lifecycle event published so far under `key` has reached `events`, without
 * sleeping: publishes a marker under the same key (the same partition, delivered in order),
 * waits for it, and takes it out of `events` again. Whatever was published before is in by then,
 * so "nothing more arrived" can be asserted right after.
 */
export async function deliveredSoFar(
  h: Pick<Harness, 'infrastructure' | 'events'>,
  key: string,
): Promise<void> {
  const id = `marker-${++markers}`;
  await h.infrastructure.bus.publish(topics.tournamentLifecycle.name, [
    { key, value: new Uint8Array(), headers: { [EventHeader.type]: MARKER, [EventHeader.id]: id } },
  ]);
  const seen = () => h.events.findIndex((event) => event.id === id);
  await waitFor(() => seen() >= 0, 'the marker event');
  h.events.splice(seen(), 1);
}

export interface Harness {
  clock: TestClock;
  infrastructure: Infrastructure;
  module: TournamentModule;
  client: Client<typeof TournamentService>;
  /** Lifecycle events published so far. */
  events: ObservedEvent[];
  /** Another replica of the service on the same infrastructure. */
  replica: () => { module: TournamentModule; client: Client<typeof TournamentService> };
  stop: () => Promise<void>;
}

export interface HarnessOptions {
  clock?: TestClock;
  /** Wraps the bus the service publishes with (e.g. to make it fail). */
  bus?: (bus: EventBus) => EventBus;
  /** Run the service's components (the polling scheduler) too. */
  startComponents?: boolean;
  env?: Record<string, string>;
}

/**
 * The tournament service on the real in-memory adapters, called through Connect in-process,
 * exactly as the standalone gateway calls it.
 */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const clock = options.clock ?? testClock();
  const memory = createMemoryInfrastructure(logger);
  const infrastructure: Infrastructure = {
    bus: options.bus ? options.bus(memory.bus) : memory.bus,
    store: memory.store,
    documents: memory.documents,
    components: memory.components,
  };
  const config = tournamentConfig(options.env ?? {});
  const build = () => {
    const module = createTournamentModule(
      { ...testContext(infrastructure, { logger }), registry },
      config,
      { clock },
    );
    const routes = module.registerRpc;
    if (!routes) throw new Error('the tournament service registers no RPC handlers');
    return { module, client: createClient(TournamentService, createInProcessTransport(routes)) };
  };
  const main = build();
  const group = new ComponentGroup(logger, [
    ...infrastructure.components,
    ...(options.startComponents ? main.module.components : []),
  ]);
  await group.start();
  const observer = await observeLifecycle(memory.bus, 'test-observer');
  return {
    clock,
    infrastructure,
    ...main,
    events: observer.events,
    replica: build,
    stop: async () => {
      await observer.stop();
      await group.stop();
    },
  };
}
