/**
 * The game's lifecycle scripts: `joinGame`, `createGame`, the lease (`acquireLease`,
 * `releaseLease`) and `advanceGame`, the fenced step that moves the game forward.
 */
import { defineScript } from '@underdog/store';
import { hSetNx, num } from './script-steps';

/**
 * Join (live, or from saved offline choices). KEYS: state, players, devices, offline, alive.
 * ARGV: userId, player JSON, deviceId ('' none), now ms, mode ('live'|'offline'), choices.
 * Replies JOINED, ALREADY, NO_TOURNAMENT, JOIN_CLOSED or DEVICE_IN_USE. An offline registration
 * was already accepted by the tournament service, so it skips the window and device refusals.
 * A new participant is alive from their join, before the game too: `createGame` then has no
 * audience-sized copy to make.
 */
export const joinGame = defineScript<string>({
  name: 'underdogJoinGame',
  lua: `
local st = redis.call('HMGET', KEYS[1], 'tournamentStatus', 'gameId', 'phase', 'round', 'votingEndsAt')
if not st[1] then return 'NO_TOURNAMENT' end
local user = ARGV[1]
local mode = ARGV[5]
if mode == 'live' then
  if redis.call('HEXISTS', KEYS[2], user) == 1 then return 'ALREADY' end
  local open = false
  if st[1] == 'upcoming' then open = true
  elseif st[1] == 'live' and st[3] ~= 'finished' then
    local round = tonumber(st[4] or '0') or 0
    if round == 0 then open = true
    elseif round == 1 and st[3] == 'voting' and tonumber(ARGV[4]) <= (tonumber(st[5] or '0') or 0) then open = true end
  end
  if not open then return 'JOIN_CLOSED' end
end
if ARGV[3] ~= '' then
  local holder = redis.call('HGET', KEYS[3], ARGV[3])
  if holder and holder ~= user then
    if mode == 'live' then return 'DEVICE_IN_USE' end
  elseif not holder then
    redis.call('HSET', KEYS[3], ARGV[3], user)
  end
end
local new = redis.call('HSETNX', KEYS[2], user, ARGV[2])
if new == 1 then
  redis.call('HINCRBY', KEYS[1], 'participantCount', 1)
  redis.call('SADD', KEYS[5], user)
end
if mode == 'offline' and redis.call('HSETNX', KEYS[4], user, ARGV[6]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'offlineCount', 1)
end
if new == 1 then return 'JOINED' end
return 'ALREADY'
`,
  memory: (redis, [state = '', players = '', devices = '', offline = '', alive = ''], args) => {
    const [user = '', player = '', device = '', now = '0', mode = '', choices = ''] = args;
    const status = redis.hGet(state, 'tournamentStatus');
    if (status === null) return 'NO_TOURNAMENT';
    const phase = redis.hGet(state, 'phase');
    if (mode === 'live') {
      if (redis.hGet(players, user) !== null) return 'ALREADY';
      let open = false;
      if (status === 'upcoming') open = true;
      else if (status === 'live' && phase !== 'finished') {
        const round = num(redis.hGet(state, 'round'));
        if (round === 0) open = true;
        else if (
          round === 1 &&
          phase === 'voting' &&
          Number(now) <= num(redis.hGet(state, 'votingEndsAt'))
        )
          open = true;
      }
      if (!open) return 'JOIN_CLOSED';
    }
    if (device !== '') {
      const holder = redis.hGet(devices, device);
      if (holder !== null && holder !== user) {
        if (mode === 'live') return 'DEVICE_IN_USE';
      } else if (holder === null) redis.hSet(devices, { [device]: user });
    }
    const added = hSetNx(redis, players, user, player);
    if (added) {
      redis.hIncrBy(state, 'participantCount', 1);
      redis.sAdd(alive, user);
    }
    if (mode === 'offline' && hSetNx(redis, offline, user, choices)) {
      redis.hIncrBy(state, 'offlineCount', 1);
    }
    return added ? 'JOINED' : 'ALREADY';
  },
});

/**
 * Creates the game when the tournament goes live: the players registered so far are all alive.
 * KEYS: state, players, alive. ARGV: gameId, now ms, totalRounds, and optionally the game's vote
 * slots K (`voteSlots`, docs/adr/0012; absent means one), fixed from then on.
 * Replies `CREATED:<gameId>` or `EXISTS:<gameId>` (a redelivered `live` event).
 *
 * Every join since `joinGame` made players alive from their join leaves the alive set holding
 * every player already (two counts compared, O(1)). Only players who joined before that — while
 * alive began at the game's creation — are copied, in one step as large as they are many.
 */
export const createGame = defineScript<string>({
  name: 'underdogCreateGame',
  lua: `
local current = redis.call('HGET', KEYS[1], 'gameId')
if current and current ~= '' then return 'EXISTS:' .. current end
redis.call('HSET', KEYS[1], 'gameId', ARGV[1], 'tournamentStatus', 'live', 'phase', 'waiting',
  'round', '0', 'totalRounds', ARGV[3], 'startedAt', ARGV[2], 'phaseEndsAt', '0', 'totalVotes', '0')
if ARGV[4] and ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'voteSlots', ARGV[4]) end
if redis.call('SCARD', KEYS[3]) < redis.call('HLEN', KEYS[2]) then
  for _, user in ipairs(redis.call('HKEYS', KEYS[2])) do redis.call('SADD', KEYS[3], user) end
end
return 'CREATED:' .. ARGV[1]
`,
  memory: (redis, [state = '', players = '', alive = ''], args) => {
    const [gameId = '', now = '', total = '', slots = ''] = args;
    const current = redis.hGet(state, 'gameId');
    if (current) return `EXISTS:${current}`;
    redis.hSet(state, {
      gameId,
      tournamentStatus: 'live',
      phase: 'waiting',
      round: '0',
      totalRounds: total,
      startedAt: now,
      phaseEndsAt: '0',
      totalVotes: '0',
    });
    if (slots !== '') redis.hSet(state, { voteSlots: slots });
    const users = Object.keys(redis.hGetAll(players));
    if (redis.sCard(alive) < users.length) redis.sAdd(alive, ...users);
    return `CREATED:${gameId}`;
  },
});

/**
 * Takes or renews the game's lease. KEYS: lease, state. ARGV: owner, ttl ms.
 * Replies the fencing token (a new one on every take-over), or 0 when another replica holds it.
 */
export const acquireLease = defineScript<number>({
  name: 'underdogAcquireLease',
  lua: `
local current = redis.call('GET', KEYS[1])
if current then
  local sep = string.find(current, '|', 1, true)
  if string.sub(current, 1, sep - 1) == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return tonumber(string.sub(current, sep + 1))
  end
  return 0
end
local token = redis.call('HINCRBY', KEYS[2], 'fence', 1)
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
return token
`,
  memory: (redis, [lease = '', state = ''], [owner = '', ttl = '0']) => {
    const current = redis.get(lease);
    if (current !== null) {
      const sep = current.indexOf('|');
      if (current.slice(0, sep) === owner) {
        redis.expire(lease, Number(ttl));
        return Number(current.slice(sep + 1));
      }
      return 0;
    }
    const token = redis.hIncrBy(state, 'fence', 1);
    redis.set(lease, `${owner}|${token}`, { ttlMs: Number(ttl) });
    return token;
  },
});

/** Gives the lease up (a clean stop). KEYS: lease. ARGV: owner, token. */
export const releaseLease = defineScript<number>({
  name: 'underdogReleaseLease',
  lua: `
if redis.call('GET', KEYS[1]) == ARGV[1] .. '|' .. ARGV[2] then return redis.call('DEL', KEYS[1]) end
return 0
`,
  memory: (redis, [lease = ''], [owner = '', token = '']) =>
    redis.get(lease) === `${owner}|${token}` ? redis.del(lease) : 0,
});

/**
 * Moves the game forward, fenced: only the holder of the current token, only from the expected
 * phase and round (`*` skips that check). KEYS: state, alive, eliminated.
 * ARGV: token, expected phase, expected round, n, n field/value pairs, elimination round,
 * then the user ids eliminated in it. Replies OK, FENCED or STALE.
 *
 * The eliminated ids are kept for the engine as it is (issue 35): a round's eliminations grow
 * with the audience, and go through `eliminate` (`elimination.ts`), ≤ 10,000 ids a step.
 */
export const advanceGame = defineScript<string>({
  name: 'underdogAdvanceGame',
  lua: `
local st = redis.call('HMGET', KEYS[1], 'fence', 'phase', 'round')
if st[1] ~= ARGV[1] then return 'FENCED' end
if ARGV[2] ~= '*' and (st[2] ~= ARGV[2] or st[3] ~= ARGV[3]) then return 'STALE' end
local i = 5
for _ = 1, tonumber(ARGV[4]) do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
local round = ARGV[i]
i = i + 1
while i <= #ARGV do
  redis.call('SREM', KEYS[2], ARGV[i])
  redis.call('HSET', KEYS[3], ARGV[i], round)
  i = i + 1
end
return 'OK'
`,
  memory: (redis, [state = '', alive = '', eliminated = ''], args) => {
    const [token = '', phase = '', round = '', count = '0'] = args;
    if (redis.hGet(state, 'fence') !== token) return 'FENCED';
    if (
      phase !== '*' &&
      (redis.hGet(state, 'phase') !== phase || redis.hGet(state, 'round') !== round)
    ) {
      return 'STALE';
    }
    let i = 4;
    for (let pair = 0; pair < Number(count); pair++) {
      redis.hSet(state, { [args[i]!]: args[i + 1]! });
      i += 2;
    }
    const eliminatedIn = args[i] ?? '';
    for (const user of args.slice(i + 1)) {
      redis.sRem(alive, user);
      redis.hSet(eliminated, { [user]: eliminatedIn });
    }
    return 'OK';
  },
});
