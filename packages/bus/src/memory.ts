// Over 300 lines: one adapter, the in-memory twin of every EventBus promise (groups, offsets, redelivery).
import type { Logger } from '@underdog/kit';
import type {
  Appended,
  BusMessage,
  EventBus,
  OutgoingMessage,
  ReadRange,
  SubscribeOptions,
  Subscription,
  TopicSpec,
} from './port';
import { handleBatchInContext, withRequestIdHeader } from './request-context';

const DEFAULT_PARTITIONS = 3;
const MAX_BATCH = 500;
const RETRY_BACKOFF_MS = [50, 100, 200, 400, 800, 1000];

interface Member {
  id: number;
  topics: Set<string>;
  handleBatch: (batch: BusMessage[]) => Promise<void>;
  fromBeginning: boolean;
  storedOffsets: SubscribeOptions['storedOffsets'];
  recheck: NodeJS.Timeout | undefined;
}

interface PartitionCursor {
  /** Next offset to deliver; undefined until the group first owns the partition. */
  committed: number | undefined;
  running: boolean;
  inFlight: Promise<void> | undefined;
  /** A stored offset past the partition's end, already reset from (see `pump`). */
  unreachable?: string;
}

interface Group {
  members: Member[];
  cursors: Map<string, PartitionCursor>;
}

/**
 * The event bus in one process, for standalone mode and unit tests: partitioned logs kept in
 * memory, consumer groups with partition assignment, commits after the handler resolves and
 * redelivery after a failure, the same contract as the Kafka adapter.
 */
export function createMemoryBus(options: { logger?: Logger; defaultPartitions?: number } = {}) {
  return new MemoryBus(options.logger, options.defaultPartitions ?? DEFAULT_PARTITIONS);
}

export class MemoryBus implements EventBus {
  private readonly logs = new Map<
    string,
    // `nextOffsets` is kept apart from the entries: compaction removes entries, and offsets
    // must never be handed out twice.
    { spec: TopicSpec; partitions: BusMessage[][]; nextOffsets: number[] }
  >();
  private readonly groups = new Map<string, Group>();
  private nextMemberId = 1;
  private closed = false;

  constructor(
    private readonly logger: Logger | undefined,
    private readonly defaultPartitions: number,
  ) {}

  async ensureTopics(topics: TopicSpec[]): Promise<void> {
    for (const spec of topics) this.topic(spec.name, spec);
  }

  async publish(topic: string, messages: OutgoingMessage[]): Promise<Appended[]> {
    this.assertOpen();
    const log = this.topic(topic);
    const appended: Appended[] = [];
    const touched = new Set<number>();
    for (const message of messages) {
      const partition = partitionFor(message.key, log.partitions.length);
      const entries = log.partitions[partition]!;
      if (log.spec.compacted) compact(entries, message.key);
      const offset = String(log.nextOffsets[partition]!++);
      appended.push({ partition, offset });
      touched.add(partition);
      entries.push({
        topic,
        partition,
        offset,
        key: message.key,
        value: message.value?.slice() ?? null,
        headers: withRequestIdHeader(message.headers),
        timestamp: Date.now(),
      });
    }
    // Only the partitions written to have news, once per group that reads the topic: waking
    // every pump of every group per message cost a promise per partition per vote.
    for (const group of this.groups.values()) {
      if (!group.members.some((member) => member.topics.has(topic))) continue;
      for (const partition of touched) void this.pump(group, topic, partition, false);
    }
    return appended;
  }

  async partitionOf(topic: string, key: string): Promise<number> {
    return partitionFor(key, this.topic(topic).partitions.length);
  }

  async endOffset(topic: string, partition: number): Promise<string> {
    const next = this.topic(topic).nextOffsets[partition];
    if (next === undefined) throw new Error(`${topic} has no partition ${partition}`);
    return String(next);
  }

  async readRange(
    topic: string,
    partition: number,
    range: ReadRange,
    handle: (batch: BusMessage[]) => Promise<void>,
  ): Promise<void> {
    this.assertOpen();
    const entries = this.topic(topic).partitions[partition];
    if (!entries) throw new Error(`${topic} has no partition ${partition}`);
    const [from, to] = [BigInt(range.from), BigInt(range.to)];
    const wanted = entries.filter((m) => BigInt(m.offset) >= from && BigInt(m.offset) < to);
    for (let i = 0; i < wanted.length; i += MAX_BATCH) {
      await handle(wanted.slice(i, i + MAX_BATCH));
    }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    this.assertOpen();
    for (const topic of options.topics) this.topic(topic);
    const group: Group = this.groups.get(options.groupId) ?? { members: [], cursors: new Map() };
    this.groups.set(options.groupId, group);
    const member: Member = {
      id: this.nextMemberId++,
      topics: new Set(options.topics),
      handleBatch: handleBatchInContext(options.handleBatch),
      fromBeginning: options.fromBeginning ?? false,
      storedOffsets: options.storedOffsets,
      recheck: undefined,
    };
    if (member.storedOffsets) {
      // Every pump reads the stored offsets first, so waking them is the whole recheck.
      member.recheck = setInterval(
        () => this.kickAll(options.groupId),
        member.storedOffsets.recheckEveryMs ?? 1_000,
      );
      member.recheck.unref();
    }
    group.members.push(member);
    this.initialiseCursors(group, member);
    this.kickAll(options.groupId);
    return {
      stop: async () => {
        clearInterval(member.recheck);
        const owned = this.partitionsOf(group, member);
        group.members = group.members.filter((m) => m !== member);
        // Like a Kafka consumer leaving: the batch in flight settles first, then others take over.
        const inFlight = owned.flatMap((key) => group.cursors.get(key)?.inFlight ?? []);
        await Promise.allSettled(inFlight);
        this.kickAll(options.groupId);
      },
    };
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    this.closed = true;
    const inFlight: Promise<void>[] = [];
    for (const group of this.groups.values()) {
      for (const member of group.members) clearInterval(member.recheck);
      group.members = [];
      for (const cursor of group.cursors.values())
        if (cursor.inFlight) inFlight.push(cursor.inFlight);
    }
    await Promise.allSettled(inFlight);
  }

  private assertOpen() {
    if (this.closed) throw new Error('memory bus is closed');
  }

  private topic(name: string, spec?: TopicSpec) {
    let log = this.logs.get(name);
    if (!log) {
      const resolved = spec ?? { name, partitions: this.defaultPartitions };
      log = {
        spec: resolved,
        partitions: Array.from({ length: resolved.partitions }, () => []),
        nextOffsets: Array.from({ length: resolved.partitions }, () => 0),
      };
      this.logs.set(name, log);
    }
    return log;
  }

  private initialiseCursors(group: Group, member: Member) {
    for (const topic of member.topics) {
      const log = this.topic(topic);
      log.partitions.forEach((entries, partition) => {
        const key = `${topic}/${partition}`;
        if (group.cursors.has(key)) return;
        group.cursors.set(key, {
          committed: member.fromBeginning ? firstOffset(entries) : log.nextOffsets[partition]!,
          running: false,
          inFlight: undefined,
        });
      });
    }
  }

  /** Round-robin assignment over the group's live members, recomputed on every change. */
  private ownerOf(group: Group, topic: string, partition: number): Member | undefined {
    const candidates = group.members.filter((m) => m.topics.has(topic));
    if (candidates.length === 0) return undefined;
    return candidates[partition % candidates.length];
  }

  private partitionsOf(group: Group, member: Member): string[] {
    const keys: string[] = [];
    for (const topic of member.topics) {
      const log = this.topic(topic);
      for (let partition = 0; partition < log.partitions.length; partition++) {
        if (this.ownerOf(group, topic, partition) === member) keys.push(`${topic}/${partition}`);
      }
    }
    return keys;
  }

  /**
   * Wakes the group's pumps. `checkStored`: read the stored offsets of idle partitions too (a
   * member joined or left, or the recheck), not only of those with messages to deliver.
   */
  private kickAll(groupId: string, checkStored = true) {
    const group = this.groups.get(groupId);
    if (!group) return;
    for (const key of group.cursors.keys()) {
      const [topic, partition] = splitKey(key);
      void this.pump(group, topic, partition, checkStored);
    }
  }

  /**
   * Delivers one partition to its current owner, one batch at a time. The owner is looked up
   * before every batch, so after a rebalance the next batch goes to the new owner, starting from
   * the last committed offset.
   */
  private async pump(
    group: Group,
    topic: string,
    partition: number,
    checkStored: boolean,
  ): Promise<void> {
    const cursor = group.cursors.get(`${topic}/${partition}`);
    if (!cursor || cursor.running) return;
    cursor.running = true;
    let attempt = 0;
    try {
      for (;;) {
        if (this.closed) return;
        const owner = this.ownerOf(group, topic, partition);
        if (!owner) return;
        const log = this.topic(topic);
        const pending = firstAtOrAfter(log.partitions[partition]!, cursor.committed ?? 0) !== -1;
        if (owner.storedOffsets && (checkStored || pending)) {
          checkStored = false;
          // The consumer's own offsets rule; past the end, the position is out of range and
          // resets as Kafka's does (the oldest message, or the end).
          let stored: string | undefined;
          try {
            stored = await owner.storedOffsets.read(topic, partition);
          } catch (error) {
            this.logger?.warn({ err: error, topic, partition }, 'stored offset not read');
            await sleep(RETRY_BACKOFF_MS[Math.min(attempt++, RETRY_BACKOFF_MS.length - 1)]!);
            continue;
          }
          if (stored !== undefined && Number(stored) <= log.nextOffsets[partition]!) {
            cursor.committed = Number(stored);
          } else if (stored !== undefined && cursor.unreachable !== stored) {
            // Once per such offset, as the Kafka adapter moves there once.
            cursor.unreachable = stored;
            cursor.committed = owner.fromBeginning
              ? firstOffset(log.partitions[partition]!)
              : log.nextOffsets[partition]!;
          }
          if (this.closed || this.ownerOf(group, topic, partition) !== owner) continue;
        }
        const entries = log.partitions[partition]!;
        const start = firstAtOrAfter(entries, cursor.committed ?? 0);
        if (start === -1) return;
        const batch = entries.slice(start, start + MAX_BATCH).map(copyMessage);
        const delivery = owner.handleBatch(batch);
        cursor.inFlight = delivery.then(
          () => undefined,
          () => undefined,
        );
        try {
          await delivery;
          cursor.committed = Number(batch[batch.length - 1]!.offset) + 1;
          attempt = 0;
        } catch (error) {
          this.logger?.warn(
            { err: error, topic, partition, offset: batch[0]!.offset },
            'handler failed; the batch will be delivered again',
          );
          await sleep(RETRY_BACKOFF_MS[Math.min(attempt++, RETRY_BACKOFF_MS.length - 1)]!);
        } finally {
          cursor.inFlight = undefined;
        }
      }
    } finally {
      cursor.running = false;
    }
  }
}

/**
 * The index of the first entry at or after `offset`, or -1: a binary search, since entries are
 * in offset order (compaction removes some, never reorders). Every publish wakes the pumps, so
 * a linear scan made a round's votes cost O(votes²) in standalone mode (docs/benchmarks.md).
 */
function firstAtOrAfter(entries: BusMessage[], offset: number): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (Number(entries[middle]!.offset) < offset) low = middle + 1;
    else high = middle;
  }
  return low === entries.length ? -1 : low;
}

function splitKey(key: string): [string, number] {
  const slash = key.lastIndexOf('/');
  return [key.slice(0, slash), Number(key.slice(slash + 1))];
}

function firstOffset(entries: BusMessage[]): number {
  const first = entries[0];
  return first ? Number(first.offset) : 0;
}

/** Compaction keeps offsets stable: older messages with the key are removed, not renumbered. */
function compact(entries: BusMessage[], key: string) {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i]!.key === key) entries.splice(i, 1);
}

function copyMessage(message: BusMessage): BusMessage {
  return { ...message, value: message.value?.slice() ?? null, headers: { ...message.headers } };
}

/** FNV-1a: a stable key → partition mapping, so order per key holds as it does on Kafka. */
export function partitionFor(key: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}

function sleep(ms: number) {
  return new Promise<void>((resolve) => setTimeout(resolve, ms));
}
