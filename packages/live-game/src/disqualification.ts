import { defineScript, type LiveStore } from '@underdog/store';
import { gameKeys } from './keys';

/**
 * An administrator's disqualification of a participant during a live game (issue 28), kept in
 * the live store with the rest of the game's state so it survives a take-over and a failover.
 * The engine eliminates the participant when it resolves `round` (whatever they voted) and
 * publishes `ParticipantDisqualified` then; from the moment it is stored the participant's view
 * shows the reason.
 */
export interface StoredDisqualification {
  reason: string;
  /** ms since the epoch */
  at: number;
  /** The administrator's user id. */
  by: string;
  /** The round at whose end the participant goes out. */
  round: number;
}

/** Hash userId → JSON `StoredDisqualification`: the tournament's disqualified participants. */
export function disqualifiedKey(tournamentId: string): string {
  return `game:{${tournamentId}}:disqualified`;
}

/**
 * Records a disqualification during the game. KEYS: state, players, disqualified.
 * ARGV: userId, reason, at ms, by.
 * The round it takes effect in is decided here, atomically with the phase: before the game and in
 * round 1's voting, round 1; while round N's votes are open or closing (`voting`, `voting_ended`),
 * N; once N is being counted or shown (`tallying`, `results`, an advertisement), N + 1 — the
 * tally may have read the marks already. Replies:
 * `NEW:<json>` or `ALREADY:<json>` (the first mark stands), `NO_TOURNAMENT`, `NOT_PARTICIPANT`,
 * `ENDING` (the last round is resolved: the game is ending; after it, the records decide) or
 * `FINISHED`.
 */
export const disqualifyParticipant = defineScript<string>({
  name: 'underdogDisqualifyParticipant',
  lua: `
local st = redis.call('HMGET', KEYS[1], 'tournamentStatus', 'gameId', 'phase', 'round', 'totalRounds', 'decidedBy')
if not st[1] then return 'NO_TOURNAMENT' end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return 'NOT_PARTICIPANT' end
local existing = redis.call('HGET', KEYS[3], ARGV[1])
if existing then return 'ALREADY:' .. existing end
local round = tonumber(st[4] or '0') or 0
local phase = st[3] or 'waiting'
local effective
if not st[2] or st[2] == '' or phase == 'waiting' then
  effective = 1
elseif phase == 'voting' or phase == 'voting_ended' then
  effective = round
elseif phase == 'finished' then
  return 'FINISHED'
elseif (st[6] and st[6] ~= '') or round >= (tonumber(st[5] or '0') or 0) then
  return 'ENDING'
else
  effective = round + 1
end
local mark = cjson.encode({ reason = ARGV[2], at = tonumber(ARGV[3]), by = ARGV[4], round = effective })
redis.call('HSET', KEYS[3], ARGV[1], mark)
return 'NEW:' .. mark
`,
  memory: (
    redis,
    [state = '', players = '', disqualified = ''],
    [user = '', reason = '', at = '0', by = ''],
  ) => {
    const status = redis.hGet(state, 'tournamentStatus');
    if (status === null) return 'NO_TOURNAMENT';
    if (redis.hGet(players, user) === null) return 'NOT_PARTICIPANT';
    const existing = redis.hGet(disqualified, user);
    if (existing !== null) return `ALREADY:${existing}`;
    const gameId = redis.hGet(state, 'gameId') ?? '';
    const phase = redis.hGet(state, 'phase') ?? 'waiting';
    const round = Number(redis.hGet(state, 'round') ?? 0) || 0;
    const total = Number(redis.hGet(state, 'totalRounds') ?? 0) || 0;
    const decidedBy = redis.hGet(state, 'decidedBy') ?? '';
    let effective: number;
    if (gameId === '' || phase === 'waiting') effective = 1;
    else if (phase === 'voting' || phase === 'voting_ended') effective = round;
    else if (phase === 'finished') return 'FINISHED';
    else if (decidedBy !== '' || round >= total) return 'ENDING';
    else effective = round + 1;
    const mark: StoredDisqualification = { reason, at: Number(at), by, round: effective };
    const json = JSON.stringify(mark);
    redis.hSet(disqualified, { [user]: json });
    return `NEW:${json}`;
  },
});

export type DisqualifyReply =
  | { outcome: 'NEW' | 'ALREADY'; mark: StoredDisqualification }
  | { outcome: 'NO_TOURNAMENT' | 'NOT_PARTICIPANT' | 'ENDING' | 'FINISHED' };

/** Runs `disqualifyParticipant` and parses its reply. */
export async function disqualify(
  store: LiveStore,
  tournamentId: string,
  mark: { userId: string; reason: string; at: number; by: string },
): Promise<DisqualifyReply> {
  const keys = gameKeys(tournamentId);
  const reply = await store.run(
    disqualifyParticipant,
    [keys.state, keys.players, disqualifiedKey(tournamentId)],
    [mark.userId, mark.reason, mark.at, mark.by],
  );
  const [outcome = '', json = ''] = reply.split(/:(.*)/s);
  if (outcome === 'NEW' || outcome === 'ALREADY') {
    return { outcome, mark: JSON.parse(json) as StoredDisqualification };
  }
  return { outcome: outcome as 'NO_TOURNAMENT' | 'NOT_PARTICIPANT' | 'ENDING' | 'FINISHED' };
}

/** Every disqualification of the tournament's live game, by user id. */
export async function disqualifications(
  store: LiveStore,
  tournamentId: string,
): Promise<Map<string, StoredDisqualification>> {
  const marks = new Map<string, StoredDisqualification>();
  // Scanned: one administrator's marks at a time, but nothing caps how many a game collects.
  for await (const chunk of store.hScan(disqualifiedKey(tournamentId))) {
    for (const [userId, json] of chunk) {
      marks.set(userId, JSON.parse(json) as StoredDisqualification);
    }
  }
  return marks;
}

/** One participant's disqualification, if any. */
export async function disqualificationOf(
  store: LiveStore,
  tournamentId: string,
  userId: string,
): Promise<StoredDisqualification | undefined> {
  const json = await store.hGet(disqualifiedKey(tournamentId), userId);
  return json === null ? undefined : (JSON.parse(json) as StoredDisqualification);
}
