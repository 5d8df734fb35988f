import type { UserStatistics } from './user';

/** One game's result for one player, as `player.outcomes` reports it. */
export interface GameOutcomeFacts {
  gameId: string;
  won: boolean;
  /** The numeric part of the prize when won ("$5,000" → 5000), else 0. */
  prizeAmount: number;
  /** Rounds the player took part in. */
  roundsPlayed: number;
  /** Rounds the player advanced from. */
  roundsWon: number;
  /** Participants at the start of the game. */
  tournamentSize: number;
  endedAt: Date;
}

/**
 * A player's statistics after one more game (server rules, "Resolving a round"): every
 * participant's games, rounds and biggest tournament; the winner's wins, prizes, streak and
 * first win. A win streak counts consecutive games won; any other result ends it.
 */
export function withGameOutcome(
  statistics: UserStatistics,
  outcome: GameOutcomeFacts,
): UserStatistics {
  const currentWinStreak = outcome.won ? statistics.currentWinStreak + 1 : 0;
  return {
    gamesPlayed: statistics.gamesPlayed + 1,
    wins: statistics.wins + (outcome.won ? 1 : 0),
    totalPrizes: statistics.totalPrizes + (outcome.won ? outcome.prizeAmount : 0),
    roundsWon: statistics.roundsWon + outcome.roundsWon,
    totalRoundsPlayed: statistics.totalRoundsPlayed + outcome.roundsPlayed,
    currentWinStreak,
    longestWinStreak: Math.max(statistics.longestWinStreak, currentWinStreak),
    biggestTournamentSize: Math.max(statistics.biggestTournamentSize, outcome.tournamentSize),
    firstWinDate: statistics.firstWinDate ?? (outcome.won ? outcome.endedAt : null),
  };
}
