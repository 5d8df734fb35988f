import { MAX_VOTE_SLOTS } from '@underdog/live-game';

/** How a new game's vote slots K are chosen (docs/adr/0012). */
export interface VoteSlotsRule {
  /** `GAME_VOTE_SLOTS`: the slots of every game (1 keeps one tag and one partition a game). */
  slots: number;
  /**
   * `GAME_PLAYERS_PER_VOTE_SLOT`: with a value, a game gets a slot more for each that many
   * registered players (at least `slots`); 0 leaves every game at `slots`.
   */
  playersPerSlot: number;
  /** The partitions of `game.votes`: more slots than partitions would not apply in parallel. */
  partitions: number;
}

/**
 * The vote slots of a game created with `players` registered: `slots`, raised to one per
 * `playersPerSlot` players when set, at most the partitions of `game.votes` and `MAX_VOTE_SLOTS`.
 * Decided once, when the game is created: players who join later (round 1's window) land in the
 * slots it has.
 */
export function voteSlotsFor(players: number, rule: VoteSlotsRule): number {
  const byAudience = rule.playersPerSlot > 0 ? Math.ceil(players / rule.playersPerSlot) : 1;
  const cap = Math.max(1, Math.min(MAX_VOTE_SLOTS, rule.partitions));
  return Math.max(1, Math.min(cap, Math.max(rule.slots, byAudience)));
}
