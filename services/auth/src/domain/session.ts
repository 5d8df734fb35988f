import type { Role, User } from './user';

/** Server rules: sessions end after 24 hours without use, and 30 days after login at the latest. */
export const sessionRules = {
  idleTimeoutMs: 24 * 60 * 60_000,
  absoluteTimeoutMs: 30 * 24 * 60 * 60_000,
} as const;

/**
 * What a session record says of its user: enough to act for them (the gateway's actor) without
 * reading the user. Written at login; a verification or a role change rewrites it in every
 * session of the user, and a full session lookup repairs one that differs from the user.
 */
export interface SessionClaims {
  username: string;
  role: Role;
  isEmailVerified: boolean;
}

/** A session as the service sees it; the id is the secret the cookie carries. */
export interface Session {
  id: string;
  userId: string;
  deviceId: string;
  createdAt: Date;
  lastSeenAt: Date;
  /** Absent in records written before claims existed: the next full lookup adds them. */
  claims?: SessionClaims;
}

export function claimsOf(user: Pick<User, 'username' | 'role' | 'isEmailVerified'>): SessionClaims {
  return { username: user.username, role: user.role, isEmailVerified: user.isEmailVerified };
}

export function sameClaims(a: SessionClaims | undefined, b: SessionClaims): boolean {
  return (
    a !== undefined &&
    a.username === b.username &&
    a.role === b.role &&
    a.isEmailVerified === b.isEmailVerified
  );
}

/** When the session ends if it is not used again: the idle limit, capped by the absolute one. */
export function sessionExpiresAt(session: Pick<Session, 'createdAt' | 'lastSeenAt'>): Date {
  return new Date(
    Math.min(
      session.lastSeenAt.getTime() + sessionRules.idleTimeoutMs,
      session.createdAt.getTime() + sessionRules.absoluteTimeoutMs,
    ),
  );
}

export function isSessionAlive(
  session: Pick<Session, 'createdAt' | 'lastSeenAt'>,
  now: Date,
): boolean {
  return now.getTime() < sessionExpiresAt(session).getTime();
}
