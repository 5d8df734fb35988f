export {
  LiveStoreError,
  MEMBERS_PER_STEP,
  type LiveStore,
  type ScriptReply,
  type SetOptions,
  type StoreScript,
  type StoreValue,
  type SyncCommands,
} from './port';
export { chunksOf } from './chunks';
export { defineScript } from './script';
export { storeWith } from './store-with';
export { incrementIfBelow } from './scripts';
export { createMemoryStore, type MemoryStoreOptions } from './memory';
export {
  createRedisStore,
  REDIS_COMMAND_TIMEOUT_MS,
  redisClientOf,
  type RedisSentinelOptions,
  type RedisStoreOptions,
} from './redis';
