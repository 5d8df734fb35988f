import {
  Role as RoleMessage,
  SessionSchema,
  UserSchema,
  timestampFromDate,
  type MessageInitShape,
} from '@underdog/proto';
import { sessionExpiresAt, type Session } from './domain/session';
import type { Role, User } from './domain/user';

/** The one place where stored users and sessions become the contract's messages. */

const roleMessages: Record<Role, RoleMessage> = {
  user: RoleMessage.USER,
  admin: RoleMessage.ADMIN,
};

/** The domain role for a requested one; undefined for ROLE_UNSPECIFIED and unknown values. */
export function roleFromMessage(role: RoleMessage): Role | undefined {
  switch (role) {
    case RoleMessage.USER:
      return 'user';
    case RoleMessage.ADMIN:
      return 'admin';
    case RoleMessage.UNSPECIFIED:
      return undefined;
    default:
      return undefined;
  }
}

/** Never the password hash or the pending verification: those stay in this service. */
export function toUserMessage(user: User): MessageInitShape<typeof UserSchema> {
  const { statistics } = user;
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    displayName: user.displayName,
    role: roleMessages[user.role],
    isEmailVerified: user.isEmailVerified,
    createdAt: timestampFromDate(user.createdAt),
    statistics: {
      gamesPlayed: statistics.gamesPlayed,
      wins: statistics.wins,
      totalPrizes: statistics.totalPrizes,
      roundsWon: statistics.roundsWon,
      totalRoundsPlayed: statistics.totalRoundsPlayed,
      longestWinStreak: statistics.longestWinStreak,
      currentWinStreak: statistics.currentWinStreak,
      biggestTournamentSize: statistics.biggestTournamentSize,
      ...(statistics.firstWinDate
        ? { firstWinDate: timestampFromDate(statistics.firstWinDate) }
        : {}),
    },
  };
}

export function toSessionMessage(session: Session): MessageInitShape<typeof SessionSchema> {
  return {
    id: session.id,
    userId: session.userId,
    deviceId: session.deviceId,
    createdAt: timestampFromDate(session.createdAt),
    expiresAt: timestampFromDate(sessionExpiresAt(session)),
  };
}
