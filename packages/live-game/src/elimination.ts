import {
  chunksOf,
  defineScript,
  LiveStoreError,
  MEMBERS_PER_STEP,
  type LiveStore,
} from '@underdog/store';
import { gameKeys } from './keys';
import type { StoredPhase } from './state';

/**
 * One step of a round's eliminations, fenced like `advanceGame`: only the holder of the current
 * token, only in the expected phase and round. KEYS: state, alive, eliminated. ARGV: token,
 * expected phase, expected round, the round of elimination, then at most `MEMBERS_PER_STEP`
 * user ids (more is refused: a step never grows with the audience). Each id leaves the alive set;
 * the round it went out in is written once and never changed, so a step made again (a retry, a
 * replica taking over) changes nothing. Replies OK, FENCED or STALE.
 */
export const eliminatePlayers = defineScript<string>({
  name: 'underdogEliminatePlayers',
  lua: `
if #ARGV - 4 > ${MEMBERS_PER_STEP} then
  return redis.error_reply('ERR at most ${MEMBERS_PER_STEP} user ids a step')
end
local st = redis.call('HMGET', KEYS[1], 'fence', 'phase', 'round')
if st[1] ~= ARGV[1] then return 'FENCED' end
if st[2] ~= ARGV[2] or st[3] ~= ARGV[3] then return 'STALE' end
for i = 5, #ARGV do
  redis.call('SREM', KEYS[2], ARGV[i])
  redis.call('HSETNX', KEYS[3], ARGV[i], ARGV[4])
end
return 'OK'
`,
  memory: (redis, [state = '', alive = '', eliminated = ''], args) => {
    const [token = '', phase = '', round = '', eliminatedIn = ''] = args;
    const users = args.slice(4);
    if (users.length > MEMBERS_PER_STEP) {
      throw new LiveStoreError(`ERR at most ${MEMBERS_PER_STEP} user ids a step`);
    }
    if (redis.hGet(state, 'fence') !== token) return 'FENCED';
    if (redis.hGet(state, 'phase') !== phase || redis.hGet(state, 'round') !== round) {
      return 'STALE';
    }
    for (const user of users) {
      redis.sRem(alive, user);
      if (redis.hGet(eliminated, user) === null) redis.hSet(eliminated, { [user]: eliminatedIn });
    }
    return 'OK';
  },
});

/** The step a fenced write expects the game at, and the token that may write it. */
export interface Fence {
  token: number;
  phase: StoredPhase;
  round: number;
}

/**
 * A round's eliminations of any size, in `eliminatePlayers` steps of at most `MEMBERS_PER_STEP`
 * ids, one after the other, so Redis serves every other client between two steps. Stops at the
 * first refused step and answers its reply: the steps before it stay (each is idempotent, so the
 * next owner of the game may make them all again).
 */
export async function eliminate(
  store: LiveStore,
  tournamentId: string,
  fence: Fence,
  eliminated: { round: number; userIds: readonly string[] },
): Promise<'OK' | 'FENCED' | 'STALE'> {
  const keys = gameKeys(tournamentId);
  for (const chunk of chunksOf(eliminated.userIds)) {
    const reply = await store.run(
      eliminatePlayers,
      [keys.state, keys.alive, keys.eliminated],
      [fence.token, fence.phase, fence.round, eliminated.round, ...chunk],
    );
    if (reply !== 'OK') return reply as 'FENCED' | 'STALE';
  }
  return 'OK';
}
