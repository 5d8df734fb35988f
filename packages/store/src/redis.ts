import { Redis } from 'ioredis';
import { chunksOf, scanInChunks } from './chunks';
import {
  LiveStoreError,
  MEMBERS_PER_STEP,
  type LiveStore,
  type ScriptReply,
  type StoreScript,
  type StoreValue,
} from './port';
import { ScriptNames } from './script';

/** Redis Sentinel: the store asks the Sentinels where the primary is, and again after a failover. */
export interface RedisSentinelOptions {
  /** The Sentinels, any of which answers (three for a quorum). */
  sentinels: Array<{ host: string; port: number }>;
  /** The primary's name in the Sentinels' configuration (`sentinel monitor <name> …`). */
  name: string;
  /** The Sentinels' own password (`requirepass` of sentinel.conf), when they have one. */
  password?: string | undefined;
}

export interface RedisStoreOptions {
  /**
   * `redis://[user:password@]host:port[/db]`. With `sentinel`, only its user, password and
   * database are used: the Sentinels say where the primary is.
   */
  url: string;
  sentinel?: RedisSentinelOptions | undefined;
  /** Prepended to every key, script KEYS included, so services can share one Redis. */
  keyPrefix?: string;
  /** Connection-level errors (reconnects); commands reject with their own error anyway. */
  onConnectionError?: (error: Error) => void;
  /** A command not answered by then rejects; default `REDIS_COMMAND_TIMEOUT_MS`. */
  commandTimeoutMs?: number;
}

/**
 * How long a command may go unanswered before it rejects ("Command timed out"). A stalled
 * primary (SIGSTOP, a full disk's fsync, a partition that drops packets) otherwise holds every
 * call until TCP gives up, minutes later, with the process still looking alive. The slowest step
 * the game sends is a batch of 500 votes applied in one script (≈ 20 ms at the apply bench's
 * 25,909 votes/s) or a close step over 10,000 members: 5 s is 250 times that, and far below a
 * round's 10 s. A timed-out write may still have run: every caller already treats a failed call
 * as "not known" (a vote is answered retryably and a resend is idempotent by its id).
 */
export const REDIS_COMMAND_TIMEOUT_MS = 5_000;

/**
 * How long a closing connection waits for the server's side of the close (ioredis'
 * `disconnectTimeout`, 2 s by default) before it is destroyed; see `createRedisStore`. Over
 * loopback or a working network the close completes in well under a millisecond, so only a
 * stalled server ever waits this long.
 */
export const REDIS_DISCONNECT_TIMEOUT_MS = 200;

type ScriptCommand = (...args: Array<string | number | Array<string | number>>) => Promise<unknown>;

const clients = new WeakMap<LiveStore, Redis>();

/**
 * The connection of a store made by `createRedisStore`, for a library that counts in Redis itself
 * (the gateway's rate limiter); undefined for any other store. Its keys get the store's prefix.
 */
export function redisClientOf(store: LiveStore): Redis | undefined {
  return clients.get(store);
}

/** Connects before resolving, so a wrong URL or a dead server fails at startup. */
export async function createRedisStore(options: RedisStoreOptions): Promise<LiveStore> {
  let connected = false;
  const sentinel = options.sentinel;
  const commandTimeoutMs = options.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS;
  const client = new Redis(options.url, {
    ...(sentinel
      ? {
          sentinels: sentinel.sentinels,
          name: sentinel.name,
          ...(sentinel.password ? { sentinelPassword: sentinel.password } : {}),
          // Told of a failover by the Sentinels (+switch-master) rather than by a failing command.
          failoverDetector: true,
        }
      : {}),
    // A primary demoted to a replica (a failover) refuses writes with READONLY before running
    // them: reconnect — through the Sentinels, to the new primary — and send the command again.
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
    lazyConnect: true,
    // Reconnect after losing a working connection, but let a failed first connect end the
    // client at once, leaving no retry timer behind to keep the process alive.
    retryStrategy: (attempt) => (connected ? Math.min(attempt * 50, 2_000) : null),
    keyPrefix: options.keyPrefix ?? '',
    // Fail a command after one retry instead of queueing it for ever while Redis is away:
    // live state that arrives late is wrong state.
    maxRetriesPerRequest: 1,
    commandTimeout: commandTimeoutMs,
    // How long a connection being closed may wait for the server's side of the close before it
    // is destroyed. A stalled primary (frozen, or cut off by a silent network) never answers it:
    // after the Sentinels promote a replica (+switch-master), ioredis closes its connection and
    // reconnects only once that connection is gone. Its default, 2 s, kept every vote refused
    // for 2 s after the promotion in the fault suite's `redis-stop` (a 5 s SIGSTOP).
    disconnectTimeout: REDIS_DISCONNECT_TIMEOUT_MS,
  });
  let lastError: Error | undefined;
  client.on('error', (error: Error) => {
    lastError = error;
    options.onConnectionError?.(error);
  });
  try {
    await client.connect();
    connected = true;
  } catch (error) {
    // connect() only says "Connection is closed."; the error event said why.
    throw lastError ?? error;
  }

  // Once connected, never give up. ioredis ends the client for good (status `end`, every command
  // "Connection is closed.") when a reconnect attempt's connector fails rather than its socket:
  // with Sentinel, a failover announced (+switch-master) while the connector is still asking the
  // Sentinels where the primary is makes that attempt throw, and no retry is scheduled. Connect
  // again after a pause, until `close`.
  let closed = false;
  let restart: NodeJS.Timeout | undefined;
  client.on('end', () => {
    if (closed || restart) return;
    restart = setTimeout(() => {
      restart = undefined;
      if (closed || client.status !== 'end') return;
      options.onConnectionError?.(new Error('the Redis client ended; connecting again'));
      // A failed attempt ends the client again, which schedules the next one.
      client.connect().catch(() => undefined);
    }, 500);
  });

  let closing: Promise<void> | undefined;
  const quit = async (): Promise<void> => {
    closed = true;
    if (restart) clearTimeout(restart);
    // quit() lets pending replies arrive; without a live connection there is nothing to wait for.
    if (client.status === 'ready') await client.quit();
    // Also after quit(): with Sentinel, quit() leaves the failover detector's subscriptions to
    // the Sentinels open (ioredis#1362), which would keep the process alive.
    client.disconnect();
  };

  const scriptNames = new ScriptNames();
  const scriptCommand = (script: StoreScript<ScriptReply>): ScriptCommand => {
    // A prefix keeps script names from shadowing ioredis's own methods (`get`, `set`, ...).
    const name = `underdog_${script.name}`;
    if (scriptNames.claim(script)) client.defineCommand(name, { lua: script.lua });
    const command = (client as unknown as Record<string, ScriptCommand>)[name];
    if (!command) throw new Error(`script ${script.name} is not defined on the connection`);
    return command.bind(client);
  };

  const store: LiveStore = {
    get: (key) => call(() => client.get(key)),
    set: (key, value, { ttlMs, onlyIfAbsent, keepTtl } = {}) =>
      call(async () => {
        const flags: Array<string | number> = [];
        if (ttlMs !== undefined) flags.push('PX', ttlMs);
        if (keepTtl) flags.push('KEEPTTL');
        if (onlyIfAbsent) flags.push('NX');
        // `call` with a lower-case name still gets the key prefix; the typed `set` overloads
        // cannot express an optional combination of flags.
        return (await client.call('set', key, value, ...flags)) === 'OK';
      }),
    // Redis rejects variadic commands with nothing to do; the port answers 0 instead.
    del: (...keys) => call(() => inSteps(keys, (chunk) => client.del(chunk))),
    incrBy: (key, n) => call(() => client.incrby(key, n)),
    expire: (key, ttlMs) => call(async () => (await client.pexpire(key, ttlMs)) === 1),
    ttlMs: (key) => call(() => client.pttl(key)),
    hGet: (key, field) => call(() => client.hget(key, field)),
    hGetMany: (key, fields) =>
      call(async () => {
        // Redis rejects an HMGET without fields; the port answers an empty list instead.
        const steps = await Promise.all(
          [...chunksOf(fields)].map((chunk) => client.hmget(key, ...chunk)),
        );
        return steps.flat();
      }),
    hSet: (key, fields) =>
      call(() =>
        inSteps(Object.entries(fields), (chunk) =>
          client.hset(key, new Map<string, StoreValue>(chunk)),
        ),
      ),
    hGetAll: (key) => call(() => client.hgetall(key)),
    hIncrBy: (key, field, n) => call(() => client.hincrby(key, field, n)),
    hDel: (key, ...fields) => call(() => inSteps(fields, (chunk) => client.hdel(key, ...chunk))),
    sAdd: (key, ...members) => store.sAddMembers(key, members),
    sRem: (key, ...members) => store.sRemMembers(key, members),
    sAddMembers: (key, members) => call(() => inSteps(members, (chunk) => client.sadd(key, chunk))),
    sRemMembers: (key, members) => call(() => inSteps(members, (chunk) => client.srem(key, chunk))),
    sIsMember: (key, member) => call(async () => (await client.sismember(key, member)) === 1),
    sMembers: (key) => call(() => client.smembers(key)),
    sCard: (key) => call(() => client.scard(key)),
    sScan: (key) =>
      scanInChunks(
        (cursor) => call(() => client.sscan(key, cursor, 'COUNT', MEMBERS_PER_STEP)),
        (member) => member,
      ),
    hScan: (key) =>
      scanInChunks(
        async (cursor) => {
          const [next, flat] = await call(() =>
            client.hscan(key, cursor, 'COUNT', MEMBERS_PER_STEP),
          );
          const entries: Array<[string, string]> = [];
          for (let i = 0; i + 1 < flat.length; i += 2) entries.push([flat[i]!, flat[i + 1]!]);
          return [next, entries];
        },
        ([field]) => field,
      ),
    run: <R extends ScriptReply>(
      script: StoreScript<R>,
      keys: string[],
      args: Array<string | number>,
    ): Promise<R> =>
      // Arrays, not spread arguments: ioredis flattens them into the command, and a spread of a
      // long list would break JavaScript's argument limit before Redis saw it.
      call(async () => (await scriptCommand(script)(keys.length, keys, args)) as R),
    ping: () =>
      call(async () => {
        await client.ping();
      }),
    waitForReplicas: (replicas, timeoutMs) =>
      call(async () => {
        if (!Number.isInteger(replicas) || replicas < 0) {
          throw new RangeError(`replicas must be a whole number ≥ 0, got ${replicas}`);
        }
        if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
          // WAIT's 0 blocks for ever.
          throw new RangeError(`timeoutMs must be a whole number ≥ 1, got ${timeoutMs}`);
        }
        if (timeoutMs >= commandTimeoutMs) {
          // The client would cut the WAIT off ("Command timed out") before Redis answered it.
          throw new RangeError(
            `timeoutMs must be below the command timeout (${commandTimeoutMs} ms), got ${timeoutMs}`,
          );
        }
        return replicas === 0 ? 0 : client.wait(replicas, timeoutMs);
      }),
    // Memoised: a second quit() before the socket has gone would be refused.
    close: () => (closing ??= quit()),
  };
  clients.set(store, client);
  return store;
}

/**
 * A variadic command over a list of any length: one command per `MEMBERS_PER_STEP` items, all
 * sent at once (ioredis pipelines them on the connection), their counts added up. Nothing to do
 * sends nothing: Redis would refuse the empty command.
 */
async function inSteps<T>(
  items: readonly T[],
  command: (chunk: T[]) => Promise<number>,
): Promise<number> {
  const counts = await Promise.all([...chunksOf(items)].map(command));
  return counts.reduce((sum, count) => sum + count, 0);
}

/** Turns Redis's refusals into `LiveStoreError`s; connection failures pass through as they are. */
async function call<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    if (error instanceof Error && error.name === 'ReplyError') {
      throw new LiveStoreError(error.message, { cause: error });
    }
    throw error;
  }
}
