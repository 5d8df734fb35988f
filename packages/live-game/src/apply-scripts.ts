/**
 * The engine's apply scripts: `applyVote`, `applyVotes` (a batch of a `game.votes` partition) and
 * `raiseMark`, each raising the partition's applied mark in the same step.
 */
import { defineScript, LiveStoreError } from '@underdog/store';
import { hSetNx, num, raiseMarkIn, raiseMarkLua } from './script-steps';

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
