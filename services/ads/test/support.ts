import { randomUUID } from 'node:crypto';
import type { Appended, BusMessage, EventBus, OutgoingMessage } from '@underdog/bus';
import { ComponentGroup, type Environment } from '@underdog/kit';
import { createMemoryInfrastructure, topics, type Infrastructure } from '@underdog/platform';
import {
  AdsService,
  AdvertisementSnapshotSchema,
  fromBinary,
  type Actor,
  type Advertisement,
} from '@underdog/proto';
import { createClient, createInProcessTransport, type Client } from '@underdog/rpc';
import {
  actors as actorsOf,
  silentLogger as silentLoggerOf,
  testClock,
  testContext,
  waitFor,
} from '@underdog/test-support';
import { adsConfig, createAdsModule, type AdsModule } from '../src';

export { failureOf, waitFor } from '@underdog/test-support';

export const silentLogger = silentLoggerOf('ads-test');

/** The ads service's RPCs take no actor from a visitor. */
export const actors = {
  visitor: undefined,
  user: actorsOf.user(randomUUID()),
  admin: actorsOf.admin({ userId: randomUUID() }),
} satisfies Record<string, Actor | undefined>;

export const admin = actors.admin;

export type AdsClient = Client<typeof AdsService>;

export function clientOf(module: AdsModule): AdsClient {
  if (!module.registerRpc) throw new Error('the ads module has no RPC handlers');
  return createClient(AdsService, createInProcessTransport(module.registerRpc));
}

/** A valid create request; override what a test is about. */
export function newAd(overrides: Record<string, unknown> = {}) {
  return {
    actor: admin,
    title: 'Spring sale',
    type: 'text',
    content: 'Everything half price this week.',
    ...overrides,
  };
}

export const validationFailure = (message: string) => ({
  code: 'BAD_REQUEST',
  message,
  reason: 'VALIDATION_FAILED',
});

/** One `ads.catalog` message, decoded: a snapshot, or a tombstone (empty value). */
export interface CatalogEntry {
  key: string;
  headers: Record<string, string>;
  tombstone: boolean;
  advertisement: Advertisement | undefined;
}

export function decodeCatalogMessage(message: BusMessage): CatalogEntry {
  return {
    key: message.key,
    headers: message.headers,
    tombstone: message.value === null,
    advertisement:
      message.value === null
        ? undefined
        : fromBinary(AdvertisementSnapshotSchema, message.value).advertisement,
  };
}

/** Everything published on `ads.catalog` from now on, as a consumer of its own group sees it. */
export async function recordCatalog(bus: EventBus) {
  const entries: CatalogEntry[] = [];
  const subscription = await bus.subscribe({
    groupId: `ads-test-${randomUUID()}`,
    topics: [topics.adsCatalog.name],
    fromBeginning: true,
    handleBatch: async (batch) => {
      entries.push(...batch.map(decodeCatalogMessage));
    },
  });
  return {
    entries,
    of: (key: string) => entries.filter((entry) => entry.key === key),
    waitForCount: (key: string, count: number) =>
      waitFor(
        () => entries.filter((entry) => entry.key === key).length >= count,
        `${count} ads.catalog messages for ${key}`,
      ),
    stop: () => subscription.stop(),
  };
}

/**
 * The memory bus with a fault switch: while `failing` is set, publishing throws as a Kafka outage
 * would; `hold()` keeps the next publish waiting until released (a slow broker).
 */
export class UnreliableBus implements EventBus {
  failing = false;
  private held: { reached: () => void; release: Promise<void> } | undefined;

  constructor(private readonly inner: EventBus) {}

  /** Holds the next publish; resolves `reached` once it is waiting, publishes on `release()`. */
  hold() {
    let release!: () => void;
    let reached!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    this.held = { reached, release: released };
    return { reached: arrived, release };
  }

  async publish(topic: string, messages: OutgoingMessage[]): Promise<Appended[]> {
    if (this.failing) throw new Error('broker unavailable');
    const held = this.held;
    if (held) {
      this.held = undefined;
      held.reached();
      await held.release;
    }
    return this.inner.publish(topic, messages);
  }

  ensureTopics: EventBus['ensureTopics'] = (specs) => this.inner.ensureTopics(specs);
  subscribe: EventBus['subscribe'] = (options) => this.inner.subscribe(options);
  partitionOf: EventBus['partitionOf'] = (topic, key) => this.inner.partitionOf(topic, key);
  endOffset: EventBus['endOffset'] = (topic, partition) => this.inner.endOffset(topic, partition);
  readRange: EventBus['readRange'] = (...args) => this.inner.readRange(...args);
  ping: EventBus['ping'] = () => this.inner.ping();
  close: EventBus['close'] = () => this.inner.close();
}

/**
 * Records what the service puts on `ads.catalog`, as it is appended. Unit tests read the topic
 * here rather than through a consumer group: the memory bus re-uses a compacted key's offset when
 * that key held the partition's last message, so a consumer misses a second message for the same
 * ad (reported to the lead; `packages/bus` is not ours to change). `recordCatalog` reads through a
 * consumer, as the integration test does on Kafka.
 */
export class PublishedCatalog implements EventBus {
  readonly entries: CatalogEntry[] = [];

  constructor(private readonly inner: EventBus) {}

  of(key: string): CatalogEntry[] {
    return this.entries.filter((entry) => entry.key === key);
  }

  async publish(topic: string, messages: OutgoingMessage[]): Promise<Appended[]> {
    const appended = await this.inner.publish(topic, messages);
    if (topic !== topics.adsCatalog.name) return appended;
    for (const message of messages) {
      this.entries.push(
        decodeCatalogMessage({
          topic,
          partition: 0,
          offset: '0',
          key: message.key,
          value: message.value,
          headers: message.headers ?? {},
          timestamp: Date.now(),
        }),
      );
    }
    return appended;
  }

  ensureTopics: EventBus['ensureTopics'] = (specs) => this.inner.ensureTopics(specs);
  subscribe: EventBus['subscribe'] = (options) => this.inner.subscribe(options);
  partitionOf: EventBus['partitionOf'] = (topic, key) => this.inner.partitionOf(topic, key);
  endOffset: EventBus['endOffset'] = (topic, partition) => this.inner.endOffset(topic, partition);
  readRange: EventBus['readRange'] = (...args) => this.inner.readRange(...args);
  ping: EventBus['ping'] = () => this.inner.ping();
  close: EventBus['close'] = () => this.inner.close();
}

/**
 * The ads service on the in-memory adapters, called through Connect in-process, as the
 * standalone gateway calls it. `replica()` adds another instance on the same store and bus; each
 * replica has its own fault switch (`bus`).
 */
export async function startAds() {
  const infrastructure: Infrastructure = createMemoryInfrastructure(silentLogger);
  const catalog = new PublishedCatalog(infrastructure.bus);
  const clock = testClock();
  const group = new ComponentGroup(silentLogger, [...infrastructure.components]);
  await group.start();
  /** `env`: the service's own variables, e.g. a shorter resync interval. */
  const replica = (env: Environment = {}) => {
    const bus = new UnreliableBus(catalog);
    const module = createAdsModule(
      testContext({ ...infrastructure, bus }, { logger: silentLogger }),
      adsConfig(env),
      { clock },
    );
    return { module, bus, client: clientOf(module) };
  };
  const main = replica();
  return { ...main, catalog, clock, infrastructure, replica, stop: () => group.stop() };
}
