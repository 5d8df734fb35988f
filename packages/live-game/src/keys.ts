/**
 * Where a tournament's live game lives in the live store. The game's own keys carry the hash tag
 * `{tournamentId}`; a round's per-player vote keys (reserved, admitted, ballots, tally, vote ids)
 * are spread over the game's K vote slots (`voteSlots`, docs/adr/0012), each slot under its own
 * tag `{tournamentId:sI}` — with K = 1 the one slot's tag is the game's, the layout of before.
 * `GameKeys`' round keys are slot 0 of a one-slot game. See README.md for what each key holds.
 */
export interface GameKeys {
  /** Hash: the tournament's fields, the game's phase, round, deadlines, counts, fencing token. */
  state: string;
  /** Hash userId → JSON `{ username, joinedAt }`: every participant. */
  players: string;
  /** Hash userId → the 17 offline choices ("0".."3" each, round order): offline participants. */
  offline: string;
  /** Set of userIds still in the game. */
  alive: string;
  /** Hash userId → the round the player was eliminated in. */
  eliminated: string;
  /** Hash deviceId → the userId it backs (one device, one participant). */
  devices: string;
  /** String `owner|token` with an expiry: which replica acts for the game. */
  lease: string;
  /** Hash userId → imageId: the gateway's admission (first vote reserved) for round N. */
  reserved(round: number): string;
  /**
   * Hash userId → `voteId|castAt|P` or `…|A`: the vote the gateway admitted for the player in
   * round N, produced or in flight (P) or acknowledged (A): a resend is answered with its fate.
   */
  admitted(round: number): string;
  /** Hash userId → JSON ballot: the votes the engine applied in round N (the first stands). */
  ballots(round: number): string;
  /** Hash imageId → count in round N. */
  tally(round: number): string;
  /** Set of vote ids already applied in round N (a redelivered vote counts once). */
  voteIds(round: number): string;
  /**
   * Hash partition → the highest `game.votes` offset of a vote acknowledged in round N (or
   * `unknown`): where the round's acknowledged votes end, without asking the partition's leader.
   */
  acknowledged(round: number): string;
  /**
   * Hash userId → `imageId|castAt`: a player whose vote of round N was cast in time but could not
   * be recorded (its produce failed): its resend is admitted until the round begins closing, and
   * the engine holds the close while any is left (docs/adr/0009, 7).
   */
  held(round: number): string;
}

export function gameKeys(tournamentId: string): GameKeys {
  return remembered(gameKeysOf, tournamentId, () => Object.freeze(newGameKeys(tournamentId)));
}

function newGameKeys(tournamentId: string): GameKeys {
  const base = `game:{${tournamentId}}`;
  return {
    state: `${base}:state`,
    players: `${base}:players`,
    offline: `${base}:offline`,
    alive: `${base}:alive`,
    eliminated: `${base}:eliminated`,
    devices: `${base}:devices`,
    lease: `${base}:lease`,
    reserved: (round) => `${base}:r${round}:reserved`,
    admitted: (round) => `${base}:r${round}:admitted`,
    ballots: (round) => `${base}:r${round}:ballots`,
    tally: (round) => `${base}:r${round}:tally`,
    voteIds: (round) => `${base}:r${round}:vote-ids`,
    acknowledged: (round) => `${base}:r${round}:acknowledged`,
    held: (round) => `${base}:r${round}:held`,
  };
}

/** Set of tournament ids whose game is running: every engine replica sweeps it for orphans. */
export const ACTIVE_GAMES_KEY = 'games:active';

/** How far the engine has applied partition P of `game.votes` (the next offset to apply). */
export function votesProgressKey(partition: number): string {
  return `games:votes-applied:${partition}`;
}

/** The state field holding the game's number of vote slots K (set when the game begins). */
export const VOTE_SLOTS_FIELD = 'voteSlots';

/** The most vote slots a game may have. */
export const MAX_VOTE_SLOTS = 64;

/** The vote slots of a game as its state field holds them: 1 when absent or unreadable. */
export function voteSlotsFrom(field: string | null | undefined): number {
  const slots = Math.floor(Number(field ?? 1));
  return Number.isFinite(slots) && slots >= 1 ? Math.min(slots, MAX_VOTE_SLOTS) : 1;
}

/** A round's per-player vote keys of one vote slot, all under the slot's hash tag. */
export type SlotKeys = Pick<
  GameKeys,
  'reserved' | 'admitted' | 'ballots' | 'tally' | 'voteIds' | 'acknowledged' | 'held'
>;

/**
 * The vote slot of a player in a game of `slots` slots: a stable hash of the user id (FNV-1a,
 * 32 bits) modulo K — the gateway, the engine and every replica agree without asking anyone.
 */
export function slotOf(userId: string, slots: number): number {
  if (slots <= 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) {
    hash ^= userId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % slots;
}

/** The hash tag of vote slot `slot` of a game of `slots` slots (the game's own with one slot). */
export function slotTag(tournamentId: string, slot: number, slots: number): string {
  return slots <= 1 ? `{${tournamentId}}` : `{${tournamentId}:s${slot}}`;
}

/** The round keys of vote slot `slot` of a game of `slots` slots. */
export function slotKeys(tournamentId: string, slot: number, slots: number): SlotKeys {
  const tag = slotTag(tournamentId, slot, slots);
  return remembered(slotKeysOf, tag, () => Object.freeze(newSlotKeys(tag)));
}

function newSlotKeys(tag: string): SlotKeys {
  const base = `game:${tag}`;
  return {
    reserved: (round) => `${base}:r${round}:reserved`,
    admitted: (round) => `${base}:r${round}:admitted`,
    ballots: (round) => `${base}:r${round}:ballots`,
    tally: (round) => `${base}:r${round}:tally`,
    voteIds: (round) => `${base}:r${round}:vote-ids`,
    acknowledged: (round) => `${base}:r${round}:acknowledged`,
    held: (round) => `${base}:r${round}:held`,
  };
}

/**
 * The key sets made so far, by tournament (or slot tag): they are immutable, and a vote asked for
 * them several times (seven closures each time). At most `rememberedMax` are kept: past it the
 * cache starts again, as only the games being played are asked for.
 */
const gameKeysOf = new Map<string, GameKeys>();
const slotKeysOf = new Map<string, SlotKeys>();
const rememberedMax = 4_096;

function remembered<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size >= rememberedMax) cache.clear();
    value = make();
    cache.set(key, value);
  }
  return value;
}

/** The round keys of the slot a player's votes live in. */
export function playerSlotKeys(tournamentId: string, userId: string, slots: number): SlotKeys {
  return slotKeys(tournamentId, slotOf(userId, slots), slots);
}

/** Every vote slot's round keys of a game, slot 0 first. */
export function allSlotKeys(tournamentId: string, slots: number): SlotKeys[] {
  return Array.from({ length: Math.max(1, slots) }, (_, slot) =>
    slotKeys(tournamentId, slot, slots),
  );
}

/**
 * The key of a vote on `game.votes`: the tournament with one slot (every vote of the game on one
 * partition, as before), `tournamentId:sI` with several, so the K slots spread over partitions
 * and the engine replicas that own them apply them in parallel.
 */
export function votesKey(tournamentId: string, slot: number, slots: number): string {
  return slots <= 1 ? tournamentId : `${tournamentId}:s${slot}`;
}
