import { Role, timestampDate, type User } from '@underdog/proto';

/** A user as both edges show it: the REST JSON and the GraphQL `User` type have these fields. */
export interface UserView {
  id: string;
  username: string;
  email: string;
  displayName: string;
  role: 'user' | 'admin';
  isEmailVerified: boolean;
  /** ISO 8601. */
  createdAt: string | null;
  gamesPlayed: number;
  wins: number;
  totalPrizes: number;
  roundsWon: number;
  totalRoundsPlayed: number;
  longestWinStreak: number;
  currentWinStreak: number;
  biggestTournamentSize: number;
  /** ISO 8601, or null before the first win. */
  firstWinDate: string | null;
}

/** A role as clients, GraphQL and the services' `Actor` name it. */
export function roleName(role: Role): UserView['role'] {
  return role === Role.ADMIN ? 'admin' : 'user';
}

/** The one mapping from the auth service's `User` to what clients see. */
export function toUserView(user: User): UserView {
  const statistics = user.statistics;
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    displayName: user.displayName,
    role: roleName(user.role),
    isEmailVerified: user.isEmailVerified,
    createdAt: user.createdAt ? timestampDate(user.createdAt).toISOString() : null,
    gamesPlayed: statistics?.gamesPlayed ?? 0,
    wins: statistics?.wins ?? 0,
    totalPrizes: statistics?.totalPrizes ?? 0,
    roundsWon: statistics?.roundsWon ?? 0,
    totalRoundsPlayed: statistics?.totalRoundsPlayed ?? 0,
    longestWinStreak: statistics?.longestWinStreak ?? 0,
    currentWinStreak: statistics?.currentWinStreak ?? 0,
    biggestTournamentSize: statistics?.biggestTournamentSize ?? 0,
    firstWinDate: statistics?.firstWinDate
      ? timestampDate(statistics.firstWinDate).toISOString()
      : null,
  };
}
