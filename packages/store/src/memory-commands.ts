import { LiveStoreError, type SetOptions, type StoreValue, type SyncCommands } from './port';

interface Types {
  string: string;
  hash: Map<string, string>;
  set: Set<string>;
}

type Value = { [T in keyof Types]: { type: T; data: Types[T] } }[keyof Types];

interface Slot {
  value: Value;
  expiresAt?: number;
}

// The messages Redis sends, so callers and tests can rely on the same text on both adapters.
const WRONGTYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value';
const NOT_AN_INTEGER = 'ERR value is not an integer or out of range';
const HASH_NOT_AN_INTEGER = 'ERR hash value is not an integer';
const OVERFLOW = 'ERR increment or decrement would overflow';
const SYNTAX = 'ERR syntax error';

/** Removing expired keys nobody reads again, at most this often… */
const SWEEP_INTERVAL_MS = 100;
/**
 * …looking at this many keys each time, from where the last sweep stopped (Redis's active
 * expiry also samples): a sweep of every expiring key cost a pass over tens of thousands of
 * keys a second in a live round, now spread at ≤ 5,000 keys a second.
 */
const SWEEP_BATCH = 500;

/**
 * Redis's data model in a Map. Expiry is checked when a key is touched, and expired keys
 * nobody touches are swept from inside commands now and then: no timers, so nothing keeps
 * a process or a test alive.
 */
export class MemoryCommands implements SyncCommands {
  private readonly slots = new Map<string, Slot>();
  private readonly expiring = new Set<string>();
  private lastSweep: number;
  /** Where the next sweep goes on in `expiring` (undefined: from its start). */
  private sweepAt: IterableIterator<string> | undefined;

  constructor(private readonly now: () => number) {
    this.lastSweep = now();
  }

  /** Keys held, including expired ones not yet swept: how much memory the store is holding. */
  get size(): number {
    return this.slots.size;
  }

  get(key: string): string | null {
    return this.read(key, 'string') ?? null;
  }

  set(key: string, value: StoreValue, options: SetOptions = {}): boolean {
    const { ttlMs, onlyIfAbsent = false, keepTtl = false } = options;
    if (ttlMs !== undefined) {
      requireInteger(ttlMs);
      if (ttlMs <= 0) throw new LiveStoreError("ERR invalid expire time in 'set' command");
      if (keepTtl) throw new LiveStoreError(SYNTAX);
    }
    const existing = this.slot(key);
    if (onlyIfAbsent && existing) return false;
    const expiresAt =
      ttlMs !== undefined ? this.now() + ttlMs : keepTtl ? existing?.expiresAt : undefined;
    this.write(key, { type: 'string', data: String(value) }, expiresAt);
    return true;
  }

  del(...keys: string[]): number {
    let deleted = 0;
    for (const key of keys) {
      if (this.slot(key)) {
        this.slots.delete(key);
        deleted += 1;
      }
    }
    return deleted;
  }

  incrBy(key: string, n: number): number {
    requireInteger(n);
    const current = this.read(key, 'string');
    const next = add(current === undefined ? 0 : parseInteger(current, NOT_AN_INTEGER), n);
    this.write(key, { type: 'string', data: String(next) }, this.slots.get(key)?.expiresAt);
    return next;
  }

  expire(key: string, ttlMs: number): boolean {
    requireInteger(ttlMs);
    const slot = this.slot(key);
    if (!slot) return false;
    if (ttlMs <= 0) {
      this.slots.delete(key);
    } else {
      slot.expiresAt = this.now() + ttlMs;
      this.expiring.add(key);
    }
    return true;
  }

  ttlMs(key: string): number {
    const slot = this.slot(key);
    if (!slot) return -2;
    return slot.expiresAt === undefined ? -1 : slot.expiresAt - this.now();
  }

  hGet(key: string, field: string): string | null {
    return this.read(key, 'hash')?.get(field) ?? null;
  }

  hGetMany(key: string, fields: readonly string[]): Array<string | null> {
    const hash = this.read(key, 'hash');
    return fields.map((field) => hash?.get(field) ?? null);
  }

  hSet(key: string, fields: Record<string, StoreValue>): number {
    const entries = Object.entries(fields);
    if (entries.length === 0) return 0;
    const hash = this.readOrCreate(key, 'hash', () => new Map<string, string>());
    let added = 0;
    for (const [field, value] of entries) {
      if (!hash.has(field)) added += 1;
      hash.set(field, String(value));
    }
    return added;
  }

  hGetAll(key: string): Record<string, string> {
    return Object.fromEntries(this.read(key, 'hash') ?? []);
  }

  hIncrBy(key: string, field: string, n: number): number {
    requireInteger(n);
    const hash = this.readOrCreate(key, 'hash', () => new Map<string, string>());
    const current = hash.get(field);
    const next = add(current === undefined ? 0 : parseInteger(current, HASH_NOT_AN_INTEGER), n);
    hash.set(field, String(next));
    return next;
  }

  hDel(key: string, ...fields: string[]): number {
    const hash = this.read(key, 'hash');
    if (!hash) return 0;
    const deleted = fields.filter((field) => hash.delete(field)).length;
    if (hash.size === 0) this.slots.delete(key);
    return deleted;
  }

  sAdd(key: string, ...members: string[]): number {
    if (members.length === 0) return 0;
    const set = this.readOrCreate(key, 'set', () => new Set<string>());
    const before = set.size;
    for (const member of members) set.add(member);
    return set.size - before;
  }

  sRem(key: string, ...members: string[]): number {
    const set = this.read(key, 'set');
    if (!set) return 0;
    const removed = members.filter((member) => set.delete(member)).length;
    if (set.size === 0) this.slots.delete(key);
    return removed;
  }

  sIsMember(key: string, member: string): boolean {
    return this.read(key, 'set')?.has(member) ?? false;
  }

  sMembers(key: string): string[] {
    return [...(this.read(key, 'set') ?? [])];
  }

  sCard(key: string): number {
    return this.read(key, 'set')?.size ?? 0;
  }

  /** The live slot at `key`, dropping it first if it has expired. */
  private slot(key: string): Slot | undefined {
    this.sweepIfDue();
    const slot = this.slots.get(key);
    if (slot?.expiresAt !== undefined && slot.expiresAt <= this.now()) {
      this.slots.delete(key);
      return undefined;
    }
    return slot;
  }

  private read<T extends keyof Types>(key: string, type: T): Types[T] | undefined {
    const slot = this.slot(key);
    if (!slot) return undefined;
    if (slot.value.type !== type) throw new LiveStoreError(WRONGTYPE);
    return slot.value.data as Types[T];
  }

  private readOrCreate<T extends 'hash' | 'set'>(
    key: string,
    type: T,
    create: () => Types[T],
  ): Types[T] {
    const existing = this.read(key, type);
    if (existing !== undefined) return existing;
    const data = create();
    this.write(key, { type, data } as Value, undefined);
    return data;
  }

  private write(key: string, value: Value, expiresAt: number | undefined): void {
    this.slots.set(key, expiresAt === undefined ? { value } : { value, expiresAt });
    if (expiresAt !== undefined) this.expiring.add(key);
  }

  private sweepIfDue(): void {
    const now = this.now();
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    // A Set's iterator is live: keys deleted meanwhile are skipped, keys added are reached.
    this.sweepAt ??= this.expiring.values();
    for (let looked = 0; looked < SWEEP_BATCH; looked++) {
      const next = this.sweepAt.next();
      if (next.done) {
        this.sweepAt = undefined;
        return;
      }
      const key = next.value;
      const expiresAt = this.slots.get(key)?.expiresAt;
      if (expiresAt === undefined) {
        this.expiring.delete(key);
      } else if (expiresAt <= now) {
        this.slots.delete(key);
        this.expiring.delete(key);
      }
    }
  }
}

function requireInteger(n: number): void {
  if (!Number.isSafeInteger(n)) throw new LiveStoreError(NOT_AN_INTEGER);
}

/** Redis's integer syntax: optional minus, no plus sign, spaces or leading zeros. */
function parseInteger(text: string, message: string): number {
  const n = Number(text);
  if (!/^(0|-?[1-9][0-9]*)$/.test(text) || !Number.isSafeInteger(n)) {
    throw new LiveStoreError(message);
  }
  return n;
}

// Redis counts in 64 bits; past 2^53 a JS number would silently lose precision, so stop there.
function add(a: number, b: number): number {
  const sum = a + b;
  if (!Number.isSafeInteger(sum)) throw new LiveStoreError(OVERFLOW);
  return sum;
}
