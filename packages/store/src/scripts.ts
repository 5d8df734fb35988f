import { LiveStoreError } from './port';
import { defineScript } from './script';

const NOT_AN_INTEGER = 'ERR value is not an integer or out of range';

/**
 * KEYS: [counter]. ARGV: [cap, ttlMs?]. Increments the counter only while it is below `cap`
 * and returns the new value, or -1 once the cap is reached (the counter is left alone).
 * A positive `ttlMs` starts the counter's expiry on its first increment: a fixed window.
 *
 * One vote per user per round is `cap = 1` on a key naming the round and the user;
 * a rate limit is `cap = N` with the window as `ttlMs`.
 */
export const incrementIfBelow = defineScript<number>({
  name: 'incrementIfBelow',
  lua: `
local current = redis.call('GET', KEYS[1])
if current and not tonumber(current) then
  return redis.error_reply('${NOT_AN_INTEGER}')
end
if (tonumber(current) or 0) >= tonumber(ARGV[1]) then
  return -1
end
local next = redis.call('INCR', KEYS[1])
local ttl = tonumber(ARGV[2] or '0')
if next == 1 and ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return next
`,
  memory: (redis, [counter = ''], [cap = '0', ttlMs = '0']) => {
    const current = redis.get(counter);
    if (current !== null && Number.isNaN(Number(current))) {
      throw new LiveStoreError(NOT_AN_INTEGER);
    }
    if (Number(current ?? 0) >= Number(cap)) {
      return -1;
    }
    const next = redis.incrBy(counter, 1);
    if (next === 1 && Number(ttlMs) > 0) {
      redis.expire(counter, Number(ttlMs));
    }
    return next;
  },
});
