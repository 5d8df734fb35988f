/** The two roles of the product (server rules, "Identity and access"). */
export type Role = 'user' | 'admin';

export const roles: readonly Role[] = ['user', 'admin'];

/** Game statistics of a user (spec §3), updated from game outcomes. */
export interface UserStatistics {
  gamesPlayed: number;
  wins: number;
  totalPrizes: number;
  roundsWon: number;
  totalRoundsPlayed: number;
  longestWinStreak: number;
  currentWinStreak: number;
  biggestTournamentSize: number;
  firstWinDate: Date | null;
}

/**
 * The pending e-mail verification of an unverified user: hashes of the 6-digit code and of the
 * link token, never the secrets themselves. Absent once verified.
 */
export interface PendingVerification {
  /** argon2id hash: the code has only a million values, so a fast hash would be brute-forced. */
  codeHash: string;
  /** sha256 hex: the token has 256 random bits, and a plain hash can be looked up by index. */
  tokenHash: string;
  expiresAt: Date;
  /** Wrong codes tried with the account's session; the verification is void at `maxCodeAttempts`. */
  failedAttempts: number;
  /**
   * Wrong codes tried with only the e-mail (no session of the account): at `maxCodeAttempts`
   * codes by e-mail are no longer checked, but the code the owner's session holds stays good.
   */
  failedEmailAttempts: number;
}

/** A user as stored in the `users` collection (document id = user id, a UUID). */
export interface User {
  id: string;
  /** Lower-case `[a-z0-9_]`, 3–20 characters, unique. */
  username: string;
  /** Normalised: trimmed, lower-case. Unique. */
  email: string;
  displayName: string;
  passwordHash: string;
  role: Role;
  isEmailVerified: boolean;
  emailVerificationSentAt: Date | null;
  verification?: PendingVerification;
  statistics: UserStatistics;
  /**
   * The games whose outcome `statistics` already includes (the most recent ones), so an outcome
   * delivered again is not counted twice. Absent until the first game.
   */
  appliedGameIds?: string[];
  createdAt: Date;
}

export function emptyStatistics(): UserStatistics {
  return {
    gamesPlayed: 0,
    wins: 0,
    totalPrizes: 0,
    roundsWon: 0,
    totalRoundsPlayed: 0,
    longestWinStreak: 0,
    currentWinStreak: 0,
    biggestTournamentSize: 0,
    firstWinDate: null,
  };
}

/** E-mail addresses are compared and stored trimmed and lower-case. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
