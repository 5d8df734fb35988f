/**
 * What a watcher may see of a round (server rules, "Counts"): while a round's votes are open, and
 * until its results are out, only the total number of votes is shown — never per-image counts,
 * which would tell a player which image is least popular before they vote.
 */

/** The phases of a live game as the engine keeps and the gateway names them. */
export type RulePhase =
  'waiting' | 'voting' | 'voting_ended' | 'tallying' | 'results' | 'advertisement' | 'finished';

/** Whether per-image counts may be shown in `phase`: only once the round is resolved. */
export function countsShownIn(phase: RulePhase): boolean {
  return phase === 'results' || phase === 'advertisement' || phase === 'finished';
}
