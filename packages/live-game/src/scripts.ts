import { defineScript, LiveStoreError, type SyncCommands } from '@underdog/store';
import type { StoredBallot } from './state';

/**
 * The atomic steps on a live game, each written twice (Lua for Redis, the same steps over the
 * memory adapter). The engine owns the game's state; the gateway only runs `joinGame` through the
 * engine and `admitVote`/`releaseVote` itself. Every step that moves the game forward checks the
 * fencing token, so a replica that lost its lease cannot write. A round's keys named below
 * (reserved, admitted, ballots, tally, voteIds) are those of the player's vote slot
 * (`playerSlotKeys`, docs/adr/0012); with one slot, the game's own.
 */

function num(value: string | null): number {
  return Number(value ?? 0) || 0;
}

function hSetNx(redis: SyncCommands, key: string, field: string, value: string): boolean {
  if (redis.hGet(key, field) !== null) return false;
  redis.hSet(key, { [field]: value });
  return true;
}

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
 * The gateway's admission of a vote: participant, alive, round, phase, deadline by the caller's
 * clock, device, first vote reserved. KEYS: state, players, alive, devices, reserved(round),
 * ballots(round), admitted(round). ARGV: userId, round, imageId, now ms, deviceId, voteId.
 * Replies `OK:<votingEndsAt ms>:<gameId>` (the vote reserved, and `admitted` holds
 * `voteId|now|P`) or the refusal reason.
 *
 * One vote per player per round: (game, round, user) is the vote's identity, so a vote from a
 * player who already has one in the current round is answered with that vote's state, before the
 * deadline is checked (a resend after the answer died with its gateway, docs/adr/0009): a
 * different image is `ALREADY_VOTED`; the same image is `COUNTED` (the engine counted it),
 * `ACKNOWLEDGED` (settled as acknowledged: it will be counted) or
 * `PENDING:<voteId>:<castAt>:<gameId>:<state>` (admitted, not settled yet; state `open` while
 * voting is open by `now`, `closing` until the round resolves, `resolved` after). A resend for an
 * earlier round (graphql-ws sends an unanswered vote again when its socket reconnects, even once
 * the next round has opened) is answered from that round's ballot the same way — `COUNTED` or
 * `ALREADY_VOTED` — not `ELIMINATED` or `WRONG_ROUND` for a vote that counted.
 */
export const admitVote = defineScript<string>({
  name: 'underdogAdmitVote',
  lua: `
local st = redis.call('HMGET', KEYS[1], 'gameId', 'phase', 'round', 'votingEndsAt')
if not st[1] or st[1] == '' or st[2] == 'finished' then return 'NO_LIVE_GAME' end
local user = ARGV[1]
if redis.call('HEXISTS', KEYS[2], user) == 0 then return 'NOT_PARTICIPANT' end
local round = tonumber(st[3] or '0') or 0
if round == 0 then return 'WRONG_ROUND' end
local deadline = tonumber(st[4] or '0') or 0
local open = st[2] == 'voting' and tonumber(ARGV[4]) <= deadline
if tonumber(ARGV[2]) == round then
  local ballot = redis.call('HGET', KEYS[6], user)
  if ballot then
    if cjson.decode(ballot).imageId == ARGV[3] then return 'COUNTED' end
    return 'ALREADY_VOTED'
  end
  local reserved = redis.call('HGET', KEYS[5], user)
  if reserved then
    local entry = redis.call('HGET', KEYS[7], user)
    if reserved ~= ARGV[3] or not entry then return 'ALREADY_VOTED' end
    local id, castAt, status = string.match(entry, '^(.*)|(.*)|(.*)$')
    if not id then return 'ALREADY_VOTED' end
    if status == 'A' then return 'ACKNOWLEDGED' end
    local state = 'resolved'
    if open then state = 'open' elseif st[2] == 'voting' or st[2] == 'voting_ended' then state = 'closing' end
    return 'PENDING:' .. id .. ':' .. castAt .. ':' .. st[1] .. ':' .. state
  end
elseif tonumber(ARGV[2]) < round then
  -- A resend from a round already resolved (its socket reconnected later): the round's ballot is
  -- its fate. No ballot: it was not counted, and the refusals below say so.
  local ballot = redis.call('HGET', KEYS[6], user)
  if ballot then
    if cjson.decode(ballot).imageId == ARGV[3] then return 'COUNTED' end
    return 'ALREADY_VOTED'
  end
end
if redis.call('SISMEMBER', KEYS[3], user) == 0 then return 'ELIMINATED' end
if tonumber(ARGV[2]) ~= round then return 'WRONG_ROUND' end
if not open then return 'VOTING_CLOSED' end
if ARGV[5] ~= '' then
  local holder = redis.call('HGET', KEYS[4], ARGV[5])
  if holder and holder ~= user then return 'DEVICE_IN_USE' end
  if not holder then redis.call('HSET', KEYS[4], ARGV[5], user) end
end
-- No reservation here: a player holding one in this round was answered above.
redis.call('HSET', KEYS[5], user, ARGV[3])
redis.call('HSET', KEYS[7], user, ARGV[6] .. '|' .. ARGV[4] .. '|P')
return 'OK:' .. deadline .. ':' .. st[1]
`,
  memory: (redis, keys, args) => {
    const [state = '', players = '', alive = '', devices = '', reserved = ''] = keys;
    const [ballots = '', admitted = ''] = keys.slice(5);
    const [user = '', requested = '0', image = '', now = '0', device = '', voteId = ''] = args;
    const gameId = redis.hGet(state, 'gameId');
    const phase = redis.hGet(state, 'phase');
    if (!gameId || phase === 'finished') return 'NO_LIVE_GAME';
    if (redis.hGet(players, user) === null) return 'NOT_PARTICIPANT';
    const round = num(redis.hGet(state, 'round'));
    if (round === 0) return 'WRONG_ROUND';
    const deadline = num(redis.hGet(state, 'votingEndsAt'));
    const open = phase === 'voting' && Number(now) <= deadline;
    if (Number(requested) === round) {
      const ballot = redis.hGet(ballots, user);
      if (ballot !== null) {
        return (JSON.parse(ballot) as StoredBallot).imageId === image ? 'COUNTED' : 'ALREADY_VOTED';
      }
      const held = redis.hGet(reserved, user);
      if (held !== null) {
        const entry = redis.hGet(admitted, user);
        if (held !== image || entry === null) return 'ALREADY_VOTED';
        const parts = parseAdmitted(entry);
        if (parts.length === 0) return 'ALREADY_VOTED';
        const [id, castAt, status] = parts;
        if (status === 'A') return 'ACKNOWLEDGED';
        const where = open
          ? 'open'
          : phase === 'voting' || phase === 'voting_ended'
            ? 'closing'
            : 'resolved';
        return `PENDING:${id}:${castAt}:${gameId}:${where}`;
      }
    } else if (Number(requested) < round) {
      const ballot = redis.hGet(ballots, user);
      if (ballot !== null) {
        return (JSON.parse(ballot) as StoredBallot).imageId === image ? 'COUNTED' : 'ALREADY_VOTED';
      }
    }
    if (!redis.sIsMember(alive, user)) return 'ELIMINATED';
    if (Number(requested) !== round) return 'WRONG_ROUND';
    if (!open) return 'VOTING_CLOSED';
    if (device !== '') {
      const holder = redis.hGet(devices, device);
      if (holder !== null && holder !== user) return 'DEVICE_IN_USE';
      if (holder === null) redis.hSet(devices, { [device]: user });
    }
    // No reservation here: a player holding one in this round was answered above.
    redis.hSet(reserved, { [user]: image });
    redis.hSet(admitted, { [user]: `${voteId}|${now}|P` });
    return `OK:${deadline}:${gameId}`;
  },
});

/**
 * An `admitted` entry's parts, as Lua's `^(.*)|(.*)|(.*)$` splits it (greedy: the last two `|`).
 */
function parseAdmitted(entry: string): [string, string, string] | [] {
  const last = entry.lastIndexOf('|');
  const middle = last > 0 ? entry.lastIndexOf('|', last - 1) : -1;
  if (middle < 0) return [];
  return [entry.slice(0, middle), entry.slice(middle + 1, last), entry.slice(last + 1)];
}

/** Undoes an admission whose vote could not be produced. KEYS: reserved(round). ARGV: userId, imageId. */
export const releaseVote = defineScript<number>({
  name: 'underdogReleaseVote',
  lua: `
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
`,
  memory: (redis, [reserved = ''], [user = '', image = '']) =>
    redis.hGet(reserved, user) === image ? redis.hDel(reserved, user) : 0,
});

/**
 * Raises the applied mark of a `game.votes` partition to `value` when the message before it was
 * applied (the mark is at least `after`; '' skips that check), never lowers it: a Lua function
 * for the scripts that take a mark. Replies 1 if raised.
 */
const raiseMarkLua = `
local function raiseMark(mark, value, after)
  local current = tonumber(redis.call('GET', mark) or '0') or 0
  if tonumber(value) > current and (after == '' or current >= tonumber(after)) then
    redis.call('SET', mark, value)
    return 1
  end
  return 0
end
`;

function raiseMarkIn(redis: SyncCommands, mark: string, value: string, after: string): number {
  const current = num(redis.get(mark));
  if (Number(value) > current && (after === '' || current >= Number(after))) {
    redis.set(mark, value);
    return 1;
  }
  return 0;
}

/**
 * The engine applies one vote: once per vote id, only in its round while voting is open or just
 * ended, stamped no later than the deadline, by a player still in, first vote of the round.
 * KEYS: state, alive, ballots(round), tally(round), voteIds(round), reserved(round), and the
 * applied mark of the vote's `game.votes` partition (none for offline choices).
 * ARGV: gameId, voteId, userId, round, imageId, castAt ms, ballot JSON, then with the mark: the
 * vote's offset + 1 and the mark the message before it left ('' for the first of a batch).
 * Replies COUNTED, or why not: NO_GAME, DUPLICATE, CLOSED, LATE, NOT_ELIGIBLE, ALREADY_VOTED.
 *
 * The mark is raised in the same step, whatever the reply: after a failover to a replica that
 * missed some writes, the mark and the tallies it stands for are lost together, so the votes
 * consumer resumes from the mark and applies exactly what was lost again (docs/adr/0009). A vote
 * id already in `voteIds` was applied, or withdrawn by the gateway (`settleVote`): DUPLICATE.
 */
export const applyVote = defineScript<string>({
  name: 'underdogApplyVote',
  lua: `${raiseMarkLua}
local function apply()
  local st = redis.call('HMGET', KEYS[1], 'gameId', 'phase', 'round', 'votingEndsAt')
  if st[1] ~= ARGV[1] then return 'NO_GAME' end
  if redis.call('SADD', KEYS[5], ARGV[2]) == 0 then return 'DUPLICATE' end
  if (tonumber(st[3] or '0') or 0) ~= tonumber(ARGV[4]) or (st[2] ~= 'voting' and st[2] ~= 'voting_ended') then return 'CLOSED' end
  if tonumber(ARGV[6]) > (tonumber(st[4] or '0') or 0) then return 'LATE' end
  if redis.call('SISMEMBER', KEYS[2], ARGV[3]) == 0 then return 'NOT_ELIGIBLE' end
  if redis.call('HSETNX', KEYS[3], ARGV[3], ARGV[7]) == 0 then return 'ALREADY_VOTED' end
  redis.call('HSETNX', KEYS[6], ARGV[3], ARGV[5])
  redis.call('HINCRBY', KEYS[4], ARGV[5], 1)
  redis.call('HINCRBY', KEYS[1], 'totalVotes', 1)
  return 'COUNTED'
end
local reply = apply()
if KEYS[7] then raiseMark(KEYS[7], ARGV[8], ARGV[9] or '') end
return reply
`,
  memory: (redis, keys, args) => {
    const [state = '', alive = '', ballots = '', tally = '', voteIds = '', reserved = ''] = keys;
    const [gameId = '', voteId = '', user = '', round = '0', image = '', castAt = '0'] = args;
    const ballot = args[6] ?? '';
    const apply = () => {
      if ((redis.hGet(state, 'gameId') ?? false) !== gameId) return 'NO_GAME';
      if (redis.sAdd(voteIds, voteId) === 0) return 'DUPLICATE';
      const phase = redis.hGet(state, 'phase');
      if (
        num(redis.hGet(state, 'round')) !== Number(round) ||
        (phase !== 'voting' && phase !== 'voting_ended')
      ) {
        return 'CLOSED';
      }
      if (Number(castAt) > num(redis.hGet(state, 'votingEndsAt'))) return 'LATE';
      if (!redis.sIsMember(alive, user)) return 'NOT_ELIGIBLE';
      if (!hSetNx(redis, ballots, user, ballot)) return 'ALREADY_VOTED';
      hSetNx(redis, reserved, user, image);
      redis.hIncrBy(tally, image, 1);
      redis.hIncrBy(state, 'totalVotes', 1);
      return 'COUNTED';
    };
    const reply = apply();
    const mark = keys[6];
    if (mark !== undefined) raiseMarkIn(redis, mark, args[7] ?? '0', args[8] ?? '');
    return reply;
  },
});

/** The most votes one `applyVotes` call takes: bounds how long one script holds Redis. */
export const VOTES_PER_APPLY = 500;

/** The ARGV fields of one vote in `applyVotes`. */
const VOTE_FIELDS = 8;

/**
 * The engine applies a batch of one game's votes in one atomic step: each vote exactly as
 * `applyVote` applies it (same checks, same writes, same reply), in order, then the applied mark
 * once. At most `VOTES_PER_APPLY` votes, so no call holds Redis long.
 * KEYS: state, alive, the applied mark of the batch's `game.votes` partition, then for each round
 * the votes name: ballots(round), tally(round), voteIds(round), reserved(round).
 * ARGV: the mark's value and the mark the call before it left ('' for the first of a batch), then
 * per vote: gameId, voteId, userId, round, imageId, castAt ms, ballot JSON, and which of the
 * round key groups is its round's (1 for KEYS[4..7], 2 for KEYS[8..11], …).
 * Replies one reply per vote, in order: COUNTED, or why not (NO_GAME, DUPLICATE, CLOSED, LATE,
 * NOT_ELIGIBLE, ALREADY_VOTED). The mark is raised whatever the replies, as `applyVote` does
 * (docs/adr/0009): a failover that loses the batch's writes loses its mark with them.
 */
export const applyVotes = defineScript<string[]>({
  name: 'underdogApplyVotes',
  lua: `${raiseMarkLua}
if (#ARGV - 2) / ${VOTE_FIELDS} > ${VOTES_PER_APPLY} then
  return redis.error_reply('ERR at most ${VOTES_PER_APPLY} votes a step')
end
local st = redis.call('HMGET', KEYS[1], 'gameId', 'phase', 'round', 'votingEndsAt')
local open = st[2] == 'voting' or st[2] == 'voting_ended'
local current = tonumber(st[3] or '0') or 0
local deadline = tonumber(st[4] or '0') or 0
local counted = 0
local function apply(i)
  if st[1] ~= ARGV[i] then return 'NO_GAME' end
  local base = 3 + (tonumber(ARGV[i + 7]) - 1) * 4
  if redis.call('SADD', KEYS[base + 3], ARGV[i + 1]) == 0 then return 'DUPLICATE' end
  if current ~= tonumber(ARGV[i + 3]) or not open then return 'CLOSED' end
  if tonumber(ARGV[i + 5]) > deadline then return 'LATE' end
  if redis.call('SISMEMBER', KEYS[2], ARGV[i + 2]) == 0 then return 'NOT_ELIGIBLE' end
  if redis.call('HSETNX', KEYS[base + 1], ARGV[i + 2], ARGV[i + 6]) == 0 then return 'ALREADY_VOTED' end
  redis.call('HSETNX', KEYS[base + 4], ARGV[i + 2], ARGV[i + 4])
  redis.call('HINCRBY', KEYS[base + 2], ARGV[i + 4], 1)
  counted = counted + 1
  return 'COUNTED'
end
local replies = {}
for i = 3, #ARGV, ${VOTE_FIELDS} do
  replies[#replies + 1] = apply(i)
end
if counted > 0 then redis.call('HINCRBY', KEYS[1], 'totalVotes', counted) end
raiseMark(KEYS[3], ARGV[1], ARGV[2])
return replies
`,
  memory: (redis, keys, args) => {
    const [state = '', alive = '', mark = ''] = keys;
    if ((args.length - 2) / VOTE_FIELDS > VOTES_PER_APPLY) {
      throw new LiveStoreError(`ERR at most ${VOTES_PER_APPLY} votes a step`);
    }
    // Read once: no vote of the batch writes these fields but the total, written at the end.
    const gameId = redis.hGet(state, 'gameId') ?? false;
    const phase = redis.hGet(state, 'phase');
    const open = phase === 'voting' || phase === 'voting_ended';
    const current = num(redis.hGet(state, 'round'));
    const deadline = num(redis.hGet(state, 'votingEndsAt'));
    let counted = 0;
    const apply = (vote: string[]) => {
      const [game = '', voteId = '', user = '', round = '0', image = '', castAt = '0'] = vote;
      const [ballot = '', group = '1'] = vote.slice(6);
      if (gameId !== game) return 'NO_GAME';
      const base = 3 + (Number(group) - 1) * 4;
      const [ballots = '', tally = '', voteIds = '', reserved = ''] = keys.slice(base, base + 4);
      if (redis.sAdd(voteIds, voteId) === 0) return 'DUPLICATE';
      if (current !== Number(round) || !open) return 'CLOSED';
      if (Number(castAt) > deadline) return 'LATE';
      if (!redis.sIsMember(alive, user)) return 'NOT_ELIGIBLE';
      if (!hSetNx(redis, ballots, user, ballot)) return 'ALREADY_VOTED';
      hSetNx(redis, reserved, user, image);
      redis.hIncrBy(tally, image, 1);
      counted += 1;
      return 'COUNTED';
    };
    const replies: string[] = [];
    for (let i = 2; i < args.length; i += VOTE_FIELDS) {
      replies.push(apply(args.slice(i, i + VOTE_FIELDS)));
    }
    if (counted > 0) redis.hIncrBy(state, 'totalVotes', counted);
    raiseMarkIn(redis, mark, args[0] ?? '0', args[1] ?? '');
    return replies;
  },
});

/**
 * The gateway settles a vote it produced to `game.votes`, before it answers: the one place that
 * decides, atomically against the engine applying it, whether the vote counts (docs/adr/0009).
 * Also run by the gateway of a resend, with produced '0', to withdraw an original whose own
 * gateway never settled it (it died).
 * KEYS: state, voteIds(round), ballots(round), reserved(round), admitted(round).
 * ARGV: gameId, round, voteId, userId, imageId, produced ('1' when the produce completed, '0'
 * when it failed or timed out).
 * Replies:
 * - ACKNOWLEDGED: produced while the round's votes were not yet closing (the engine marks
 *   `votesEndOffset` before it captures the partition's end), so the vote is before the capture
 *   and will be counted; its `admitted` entry is marked `A`, so a resend is acknowledged too.
 *   Also the reply for a vote already settled so;
 * - COUNTED: the engine already counted it (acknowledge it too);
 * - WITHDRAWN: the engine had not applied it; its id is now taken, so it never will (a late or
 *   unrecorded vote), and its admission (the reservation and its `admitted` entry) is released so
 *   the player may vote again. A reservation this vote did not make (no `admitted` entry of its
 *   id: the engine's, for a vote it applied) is kept;
 * - NOT_COUNTED: the engine applied it and refused it (released likewise);
 * - SUPERSEDED: another vote of the player holds the admission (a resend took this one's place
 *   after withdrawing it): this one is not counted, the other one answers for the player.
 */
export const settleVote = defineScript<string>({
  name: 'underdogSettleVote',
  lua: `
local entry = redis.call('HGET', KEYS[5], ARGV[4])
local mine = false
local other = false
if entry then
  if string.sub(entry, 1, #ARGV[3] + 1) == ARGV[3] .. '|' then mine = true else other = true end
end
if mine and string.sub(entry, -2) == '|A' then return 'ACKNOWLEDGED' end
if ARGV[6] == '1' and not other then
  local st = redis.call('HMGET', KEYS[1], 'gameId', 'phase', 'round', 'votesEndOffset')
  if st[1] == ARGV[1] and st[3] == ARGV[2] and (st[2] == 'voting' or st[2] == 'voting_ended') and (not st[4] or st[4] == '')
    and redis.call('SISMEMBER', KEYS[2], ARGV[3]) == 0 then
    if mine then redis.call('HSET', KEYS[5], ARGV[4], string.sub(entry, 1, -2) .. 'A') end
    return 'ACKNOWLEDGED'
  end
end
local release = function()
  if not mine then return end
  if redis.call('HGET', KEYS[4], ARGV[4]) == ARGV[5] then redis.call('HDEL', KEYS[4], ARGV[4]) end
  redis.call('HDEL', KEYS[5], ARGV[4])
end
if redis.call('SADD', KEYS[2], ARGV[3]) == 1 then
  release()
  if other then return 'SUPERSEDED' end
  return 'WITHDRAWN'
end
local ballot = redis.call('HGET', KEYS[3], ARGV[4])
if ballot and cjson.decode(ballot).voteId == ARGV[3] then return 'COUNTED' end
release()
if other then return 'SUPERSEDED' end
return 'NOT_COUNTED'
`,
  memory: (redis, [state = '', voteIds = '', ballots = '', reserved = '', admitted = ''], args) => {
    const [gameId = '', round = '', voteId = '', user = '', image = '', produced = ''] = args;
    const entry = redis.hGet(admitted, user);
    const mine = entry !== null && entry.startsWith(`${voteId}|`);
    const other = entry !== null && !mine;
    if (mine && entry.endsWith('|A')) return 'ACKNOWLEDGED';
    if (produced === '1' && !other) {
      const phase = redis.hGet(state, 'phase');
      if (
        redis.hGet(state, 'gameId') === gameId &&
        redis.hGet(state, 'round') === round &&
        (phase === 'voting' || phase === 'voting_ended') &&
        !redis.hGet(state, 'votesEndOffset') &&
        !redis.sIsMember(voteIds, voteId)
      ) {
        if (mine) redis.hSet(admitted, { [user]: `${entry.slice(0, -1)}A` });
        return 'ACKNOWLEDGED';
      }
    }
    const release = () => {
      if (!mine) return;
      if (redis.hGet(reserved, user) === image) redis.hDel(reserved, user);
      redis.hDel(admitted, user);
    };
    if (redis.sAdd(voteIds, voteId) === 1) {
      release();
      return other ? 'SUPERSEDED' : 'WITHDRAWN';
    }
    const ballot = redis.hGet(ballots, user);
    if (ballot !== null && (JSON.parse(ballot) as StoredBallot).voteId === voteId) return 'COUNTED';
    release();
    return other ? 'SUPERSEDED' : 'NOT_COUNTED';
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

/**
 * Raises a progress mark, never lowers it. KEYS: mark. ARGV: value (integer), and optionally the
 * value the mark must already have reached (the message before it applied). Replies 1 if raised.
 */
export const raiseMark = defineScript<number>({
  name: 'underdogRaiseMark',
  lua: `
${raiseMarkLua}
return raiseMark(KEYS[1], ARGV[1], ARGV[2] or '')
`,
  memory: (redis, [mark = ''], [value = '0', after = '']) => raiseMarkIn(redis, mark, value, after),
});
