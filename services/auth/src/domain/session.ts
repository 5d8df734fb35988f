/** Server rules: sessions end after 24 hours without use, and 30 days after login at the latest. */
export const sessionRules = {
  idleTimeoutMs: 24 * 60 * 60_000,
  absoluteTimeoutMs: 30 * 24 * 60 * 60_000,
} as const;

/** A session as the service sees it; the id is the secret the cookie carries. */
export interface Session {
  id: string;
  userId: string;
  deviceId: string;
  createdAt: Date;
  lastSeenAt: Date;
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
