/**
 * Where a tournament's live game lives in the live store. Every key of one tournament carries the
 * hash tag `{tournamentId}`, so on a Redis Cluster they share a slot and one script may touch them
 * all. See README.md for what each key holds.
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
}

export function gameKeys(tournamentId: string): GameKeys {
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
  };
}

/** Set of tournament ids whose game is running: every engine replica sweeps it for orphans. */
export const ACTIVE_GAMES_KEY = 'games:active';

/** How far the engine has applied partition P of `game.votes` (the next offset to apply). */
export function votesProgressKey(partition: number): string {
  return `games:votes-applied:${partition}`;
}
