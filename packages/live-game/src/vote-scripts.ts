// Over 300 lines: three scripts, each its Lua beside its TypeScript twin, which one contract holds together.
/**
 * The gateway's vote scripts: `admitVote` (admission and the answer to a resend), `releaseVote`
 * (an admission undone) and `settleVote` (an admitted vote settled acknowledged or withdrawn).
 */
import { defineScript } from '@underdog/store';
import type { StoredBallot } from './state';
import { num } from './script-steps';

/**
 * The gateway's admission of a vote: participant, alive, round, phase, deadline by the caller's
 * clock, device, first vote reserved. KEYS: state, players, alive, devices, reserved(round),
 * ballots(round), admitted(round), and optionally held(round). ARGV: userId, round, imageId, now
 * ms, deviceId, voteId.
 * Replies `OK:<votingEndsAt ms>:<gameId>` (the vote reserved, and `admitted` holds
 * `voteId|now|P`) or the refusal reason. Past the deadline, a player in `held` (a vote cast in
 * time that could not be recorded) resending that same image before the round begins closing is
 * admitted as of its first cast: `HELD:<castAt>:<votingEndsAt ms>:<gameId>`, `admitted` holding
 * `voteId|castAt|P` (docs/adr/0009, 7).
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
local st = redis.call('HMGET', KEYS[1], 'gameId', 'phase', 'round', 'votingEndsAt', 'votesEndOffset')
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
local castAt = ARGV[4]
if not open then
  -- Past the deadline: only the resend of a vote cast in time and held (never recorded), while
  -- the round has not begun closing, and as of its first cast.
  local closing = st[5] and st[5] ~= ''
  local held = KEYS[8] and not closing and (st[2] == 'voting' or st[2] == 'voting_ended')
    and redis.call('HGET', KEYS[8], user)
  if not held then return 'VOTING_CLOSED' end
  local image, at = string.match(held, '^(.*)|(.*)$')
  if image ~= ARGV[3] or not tonumber(at) or tonumber(at) > deadline then return 'VOTING_CLOSED' end
  castAt = at
end
if ARGV[5] ~= '' then
  local holder = redis.call('HGET', KEYS[4], ARGV[5])
  if holder and holder ~= user then return 'DEVICE_IN_USE' end
  if not holder then redis.call('HSET', KEYS[4], ARGV[5], user) end
end
-- No reservation here: a player holding one in this round was answered above.
redis.call('HSET', KEYS[5], user, ARGV[3])
redis.call('HSET', KEYS[7], user, ARGV[6] .. '|' .. castAt .. '|P')
if not open then return 'HELD:' .. castAt .. ':' .. deadline .. ':' .. st[1] end
return 'OK:' .. deadline .. ':' .. st[1]
`,
  memory: (redis, keys, args) => {
    const [state = '', players = '', alive = '', devices = '', reserved = ''] = keys;
    const [ballots = '', admitted = '', heldKey] = keys.slice(5);
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
    let castAt = now;
    if (!open) {
      // Past the deadline: only the resend of a vote cast in time and held (never recorded),
      // while the round has not begun closing, and as of its first cast.
      const closing = (redis.hGet(state, 'votesEndOffset') ?? '') !== '';
      const held =
        heldKey !== undefined && !closing && (phase === 'voting' || phase === 'voting_ended')
          ? redis.hGet(heldKey, user)
          : null;
      if (held === null) return 'VOTING_CLOSED';
      const bar = held.lastIndexOf('|');
      const at = held.slice(bar + 1);
      if (bar < 0 || held.slice(0, bar) !== image || at === '' || !(Number(at) <= deadline)) {
        return 'VOTING_CLOSED';
      }
      castAt = at;
    }
    if (device !== '') {
      const holder = redis.hGet(devices, device);
      if (holder !== null && holder !== user) return 'DEVICE_IN_USE';
      if (holder === null) redis.hSet(devices, { [device]: user });
    }
    // No reservation here: a player holding one in this round was answered above.
    redis.hSet(reserved, { [user]: image });
    redis.hSet(admitted, { [user]: `${voteId}|${castAt}|P` });
    if (!open) return `HELD:${castAt}:${deadline}:${gameId}`;
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
 * The gateway settles a vote it produced to `game.votes`, before it answers: the one place that
 * decides, atomically against the engine applying it, whether the vote counts (docs/adr/0009).
 * Also run by the gateway of a resend, with produced '0', to withdraw an original whose own
 * gateway never settled it (it died).
 * KEYS: state, voteIds(round), ballots(round), reserved(round), admitted(round), then
 * optionally acknowledged(round) (needed for a produced vote's offset) and held(round).
 * ARGV: gameId, round, voteId, userId, imageId, produced ('1' when the produce completed, '0'
 * when it failed or timed out), and for a produced vote the partition and offset it was
 * appended at (the offset '' when the broker did not say).
 * Replies:
 * - ACKNOWLEDGED: produced while the round's votes were not yet closing (the engine marks
 *   `votesEndOffset` before it captures the partition's end), so the vote is before the capture
 *   and will be counted; its `admitted` entry is marked `A`, so a resend is acknowledged too, and
 *   `acknowledged` keeps the highest offset acknowledged on its partition (`unknown` once one
 *   came without it), which the capture can use when the partition has no leader to ask.
 *   Also the reply for a vote already settled so;
 * - COUNTED: the engine already counted it (acknowledge it too; its player is no longer held);
 * - WITHDRAWN: the engine had not applied it; its id is now taken, so it never will (a late or
 *   unrecorded vote), and its admission (the reservation and its `admitted` entry) is released so
 *   the player may vote again. A reservation this vote did not make (no `admitted` entry of its
 *   id: the engine's, for a vote it applied) is kept. A vote not produced, cast by the deadline,
 *   withdrawn before the round began closing, is `held` (`imageId|castAt`): its resend is
 *   admitted past the deadline, and the engine holds the close for it (docs/adr/0009, 7); an
 *   acknowledged vote takes its player out of `held`;
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
    if KEYS[7] then redis.call('HDEL', KEYS[7], ARGV[4]) end
    if KEYS[6] and ARGV[7] then
      -- Offsets as decimal strings, compared by length then digits (exact beyond 2^53).
      local at, seen = ARGV[8] or '', redis.call('HGET', KEYS[6], ARGV[7])
      if at == '' then redis.call('HSET', KEYS[6], ARGV[7], 'unknown')
      elseif seen ~= 'unknown' and (not seen or #at > #seen or (#at == #seen and at > seen)) then
        redis.call('HSET', KEYS[6], ARGV[7], at)
      end
    end
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
  if mine and ARGV[6] == '0' and KEYS[7] then
    -- Cast in time and never recorded: held while the round has not begun closing.
    local at = string.match(entry, '^.*|(.*)|.*$') or ''
    local st = redis.call('HMGET', KEYS[1], 'gameId', 'phase', 'round', 'votingEndsAt', 'votesEndOffset')
    if tonumber(at) and st[1] == ARGV[1] and st[3] == ARGV[2] and (st[2] == 'voting' or st[2] == 'voting_ended')
      and (not st[5] or st[5] == '') and tonumber(at) <= (tonumber(st[4] or '0') or 0) then
      redis.call('HSET', KEYS[7], ARGV[4], ARGV[5] .. '|' .. at)
    end
  end
  return 'WITHDRAWN'
end
local ballot = redis.call('HGET', KEYS[3], ARGV[4])
if ballot and cjson.decode(ballot).voteId == ARGV[3] then
  if KEYS[7] then redis.call('HDEL', KEYS[7], ARGV[4]) end
  return 'COUNTED'
end
release()
if other then return 'SUPERSEDED' end
return 'NOT_COUNTED'
`,
  memory: (redis, keys, args) => {
    const [state = '', voteIds = '', ballots = '', reserved = '', admitted = ''] = keys;
    const [acknowledged, heldKey] = keys.slice(5);
    const [gameId = '', round = '', voteId = '', user = '', image = '', produced = ''] = args;
    const [partition = '', offset = ''] = args.slice(6);
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
        if (heldKey !== undefined) redis.hDel(heldKey, user);
        if (acknowledged !== undefined && args.length > 6) {
          const seen = redis.hGet(acknowledged, partition);
          if (offset === '') redis.hSet(acknowledged, { [partition]: 'unknown' });
          else if (seen !== 'unknown' && (seen === null || BigInt(offset) > BigInt(seen))) {
            redis.hSet(acknowledged, { [partition]: offset });
          }
        }
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
      if (other) return 'SUPERSEDED';
      if (mine && produced === '0' && heldKey !== undefined) {
        // Cast in time and never recorded: held while the round has not begun closing.
        const at = parseAdmitted(entry)[1] ?? '';
        const castAt = at.trim() === '' ? Number.NaN : Number(at);
        const phase = redis.hGet(state, 'phase');
        if (
          Number.isFinite(castAt) &&
          redis.hGet(state, 'gameId') === gameId &&
          redis.hGet(state, 'round') === round &&
          (phase === 'voting' || phase === 'voting_ended') &&
          (redis.hGet(state, 'votesEndOffset') ?? '') === '' &&
          castAt <= num(redis.hGet(state, 'votingEndsAt'))
        ) {
          redis.hSet(heldKey, { [user]: `${image}|${at}` });
        }
      }
      return 'WITHDRAWN';
    }
    const ballot = redis.hGet(ballots, user);
    if (ballot !== null && (JSON.parse(ballot) as StoredBallot).voteId === voteId) {
      if (heldKey !== undefined) redis.hDel(heldKey, user);
      return 'COUNTED';
    }
    release();
    return other ? 'SUPERSEDED' : 'NOT_COUNTED';
  },
});
