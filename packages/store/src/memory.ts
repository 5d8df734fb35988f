import { chunksOf } from './chunks';
import { MemoryCommands } from './memory-commands';
import type { LiveStore, ScriptReply, SyncCommands } from './port';
import { ScriptNames } from './script';

export interface MemoryStoreOptions {
  /** The clock expiries are measured against; tests may pass a fake one. */
  now?: () => number;
}

/**
 * The standalone-mode store: one process, no server. Every command and every script runs
 * synchronously on one event loop turn, which is what makes scripts atomic here.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): LiveStore {
  const commands = new MemoryCommands(options.now ?? Date.now);
  const scriptNames = new ScriptNames();
  let closed = false;

  const open = (): SyncCommands => {
    if (closed) throw new Error('the live store is closed');
    return commands;
  };

  return {
    get: async (key) => open().get(key),
    set: async (key, value, setOptions) => open().set(key, value, setOptions),
    del: async (...keys) => open().del(...keys),
    incrBy: async (key, n) => open().incrBy(key, n),
    expire: async (key, ttlMs) => open().expire(key, ttlMs),
    ttlMs: async (key) => open().ttlMs(key),
    hGet: async (key, field) => open().hGet(key, field),
    hGetMany: async (key, fields) => open().hGetMany(key, fields),
    hSet: async (key, fields) => open().hSet(key, fields),
    hGetAll: async (key) => open().hGetAll(key),
    hIncrBy: async (key, field, n) => open().hIncrBy(key, field, n),
    hDel: async (key, ...fields) => open().hDel(key, ...fields),
    sAdd: async (key, ...members) => open().sAdd(key, ...members),
    sRem: async (key, ...members) => open().sRem(key, ...members),
    // Chunked only so that no call spreads the whole list; every command here is synchronous,
    // so the whole list is still added (removed) in one go.
    sAddMembers: async (key, members) => inSteps(members, (chunk) => open().sAdd(key, ...chunk)),
    sRemMembers: async (key, members) => inSteps(members, (chunk) => open().sRem(key, ...chunk)),
    sIsMember: async (key, member) => open().sIsMember(key, member),
    sMembers: async (key) => open().sMembers(key),
    sCard: async (key) => open().sCard(key),
    // Read when the scan starts: what is there then comes once, what changes later does not.
    sScan: (key) => inChunks(() => open().sMembers(key)),
    hScan: (key) => inChunks(() => Object.entries(open().hGetAll(key))),
    run: async (script, keys, args) => {
      const redis = open();
      scriptNames.claim(script);
      const reply = script.memory(redis, [...keys], args.map(String));
      return asRedisReply(reply) as typeof reply;
    },
    ping: async () => {
      open();
    },
    // One process, no replica: nothing is ever confirmed elsewhere.
    waitForReplicas: async () => {
      open();
      return 0;
    },
    close: async () => {
      closed = true;
    },
  };
}

function inSteps(members: readonly string[], command: (chunk: string[]) => number): number {
  let count = 0;
  for (const chunk of chunksOf(members)) count += command(chunk);
  return count;
}

async function* inChunks<T>(read: () => T[]): AsyncGenerator<T[]> {
  yield* chunksOf(read());
}

/** Applies Redis's Lua-to-reply conversion (see `StoreScript`) to a memory script's result. */
function asRedisReply(value: ScriptReply | undefined): ScriptReply {
  if (value === null || value === undefined) return null;
  // `|| 0` because Redis has no negative zero: -0.5 comes back as 0.
  if (typeof value === 'number') return Math.trunc(value) || 0;
  if (typeof value === 'string') return value;
  const nil = value.findIndex((item) => item === null || item === undefined);
  return (nil === -1 ? value : value.slice(0, nil)).map(asRedisReply);
}
