/**
 * The live-state store: short-lived, hot data shared by every replica of a service
 * (live votes, round state, rate limits, sessions). Redis in distributed mode, a Map in
 * standalone mode. The operations and their results follow Redis, so code written against
 * the memory adapter behaves the same on a real server.
 */

/**
 * The most members, fields or keys one command carries, and the most a scan step returns: a
 * command whose size grows with the audience blocks Redis for as long as it runs, and an
 * argument list spread into one call breaks JavaScript's argument limit (a RangeError somewhere
 * between 120,000 and 200,000 arguments). Longer lists are split into commands of this size.
 */
export const MEMBERS_PER_STEP = 10_000;

/** What callers may write; numbers are stored as their decimal string, as Redis does. */
export type StoreValue = string | number;

export interface SetOptions {
  /** Expire the key after this many milliseconds (Redis `PX`); a positive integer. */
  ttlMs?: number;
  /** Only write when the key does not exist (Redis `NX`); `set` then returns false. */
  onlyIfAbsent?: boolean;
  /** Keep the key's current expiry instead of clearing it (Redis `KEEPTTL`). */
  keepTtl?: boolean;
}

/**
 * The command set, synchronous. The memory adapter implements it directly and hands it to
 * scripts; `LiveStore` offers the same commands asynchronously. Variadic commands called with
 * nothing to do (no keys, fields or members) return 0 without a round trip. On `LiveStore`, a
 * call with more than `MEMBERS_PER_STEP` keys, fields or members is sent as several commands of
 * at most that many, pipelined: each is atomic, the call as a whole is not.
 */
export interface SyncCommands {
  /** The string at `key`, or null when missing. */
  get(key: string): string | null;
  /** Writes a string; true when written, false when `onlyIfAbsent` found the key. */
  set(key: string, value: StoreValue, options?: SetOptions): boolean;
  /** Deletes keys of any type; how many existed. */
  del(...keys: string[]): number;
  /** Adds `n` to the integer at `key` (missing counts as 0), keeping its expiry. */
  incrBy(key: string, n: number): number;
  /** Sets an expiry; false when the key is missing. A ttl of 0 or less deletes the key. */
  expire(key: string, ttlMs: number): boolean;
  /** Milliseconds left; -2 when the key is missing, -1 when it has no expiry. */
  ttlMs(key: string): number;
  hGet(key: string, field: string): string | null;
  /**
   * Several fields of one hash (Redis `HMGET`), in the order asked, null where missing; a list of
   * any length is read in steps of at most `MEMBERS_PER_STEP` fields (each atomic, the whole not).
   */
  hGetMany(key: string, fields: readonly string[]): Array<string | null>;
  /** Writes fields; how many of them were new. */
  hSet(key: string, fields: Record<string, StoreValue>): number;
  /**
   * Every field, or `{}` when the key is missing. One command however large the hash: for a
   * hash that grows with the audience, `LiveStore.hScan`.
   */
  hGetAll(key: string): Record<string, string>;
  hIncrBy(key: string, field: string, n: number): number;
  /** Deletes fields; how many existed. The key disappears with its last field. */
  hDel(key: string, ...fields: string[]): number;
  /** Adds members; how many were new. */
  sAdd(key: string, ...members: string[]): number;
  /** Removes members; how many existed. The key disappears with its last member. */
  sRem(key: string, ...members: string[]): number;
  sIsMember(key: string, member: string): boolean;
  /**
   * Every member, in no particular order. One command however large the set: for a set that
   * grows with the audience, `LiveStore.sScan`.
   */
  sMembers(key: string): string[];
  sCard(key: string): number;
}

/** What a script may return, after Redis's Lua-to-reply conversion. */
export type ScriptReply = number | string | null | ScriptReply[];

/**
 * An atomic multi-step operation, written twice: `lua` runs on Redis (EVALSHA), `memory` runs
 * synchronously inside the memory adapter, which makes it just as atomic.
 *
 * Both bodies see `keys` as KEYS and `args` as ARGV (always strings). A script must touch only
 * the keys it is given: the Redis adapter prefixes KEYS, never names built inside the script.
 *
 * The result `R` is what Redis hands back from Lua, and `memory` must return the same shape:
 * - a Lua number becomes an integer (truncated toward zero: 3.9 → 3);
 * - a Lua string stays a string;
 * - Lua nil and false become null, Lua true becomes 1 — return 1/0 for yes/no, never booleans;
 * - a Lua array becomes an array, cut at its first nil (`{1, nil, 3}` → `[1]`);
 * - `redis.error_reply('CODE message')` rejects with a `LiveStoreError` whose code is CODE; in
 *   `memory`, throw `new LiveStoreError('CODE message')`.
 * The memory adapter applies the same conversion to whatever `memory` returns, so a sloppy
 * float or a null inside an array behaves as on Redis.
 */
export interface StoreScript<R extends ScriptReply> {
  /** Unique per process: letters, digits and underscores, starting with a letter. */
  readonly name: string;
  readonly lua: string;
  readonly memory: (redis: SyncCommands, keys: string[], args: string[]) => R;
}

type Asynchronous<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never;
};

export interface LiveStore extends Asynchronous<SyncCommands> {
  /**
   * Adds a list of members of any length, without spreading it into one call: commands of at
   * most `MEMBERS_PER_STEP` members, pipelined (each atomic, the whole not). How many were new.
   */
  sAddMembers(key: string, members: readonly string[]): Promise<number>;
  /** Removes a list of members of any length, as `sAddMembers` adds them. How many existed. */
  sRemMembers(key: string, members: readonly string[]): Promise<number>;
  /**
   * The set's members in chunks of at most `MEMBERS_PER_STEP` (Redis `SSCAN`), each chunk one
   * step that does not block the store for the whole set. Every member present from the start
   * to the end of the scan comes exactly once; one added or removed meanwhile may come or not.
   * A missing key yields nothing; a key of another type rejects with WRONGTYPE.
   */
  sScan(key: string): AsyncIterable<string[]>;
  /**
   * The hash's fields and values in chunks of at most `MEMBERS_PER_STEP` entries (Redis
   * `HSCAN`), with `sScan`'s guarantees: every field present throughout comes exactly once.
   */
  hScan(key: string): AsyncIterable<Array<[field: string, value: string]>>;
  /** Runs a script atomically: no other command interleaves with its steps. */
  run<R extends ScriptReply>(
    script: StoreScript<R>,
    keys: string[],
    args: Array<string | number>,
  ): Promise<R>;
  /** Resolves when the store answers; rejects otherwise. */
  ping(): Promise<void>;
  /**
   * Waits until `replicas` replicas have acknowledged every write this store's connection made so
   * far, or `timeoutMs` has passed (Redis `WAIT`; a positive timeout, since 0 waits for ever), and
   * resolves with how many did: fewer than asked means a failover now may lose those writes.
   * Asking for 0 answers at once. The memory adapter has no replicas: it answers 0 at once.
   * The Redis adapter refuses (RangeError) a timeout not below its command timeout, which would
   * cut the WAIT off before Redis answered.
   */
  waitForReplicas(replicas: number, timeoutMs: number): Promise<number>;
  /** Releases the connection; commands reject afterwards. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * A command the store refused. `code` is the first word of the message, as Redis reports it:
 * `WRONGTYPE` when a key holds another type, `ERR` for bad arguments or non-integer values,
 * or whatever code a script raised.
 */
export class LiveStoreError extends Error {
  readonly code: string;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LiveStoreError';
    this.code = message.split(' ', 1)[0] ?? 'ERR';
  }
}
