import { defineScript, type LiveStore } from '@underdog/store';
import {
  sessionExpiresAt,
  sessionRules,
  type Session,
  type SessionClaims,
} from '../domain/session';
import { sha256 } from './secrets';

/**
 * KEYS: [session, userSessions]. ARGV: [userId, deviceId, createdAt, lastSeenAt, ttlMs,
 * userSessionsTtlMs, username, role, verified, sessionKey]. Writes the session with its claims
 * and its expiry and lists it under its user, in one step, so no session ever exists without an
 * expiry or outside its user's list. The list holds `sessionKey` as the caller names it, not
 * KEYS[1]: on Redis KEYS[1] carries the adapter's key prefix, which the commands reading the list
 * back would add a second time.
 */
export const createSessionScript = defineScript<number>({
  name: 'authCreateSession',
  lua: `
redis.call('HSET', KEYS[1], 'userId', ARGV[1], 'deviceId', ARGV[2], 'createdAt', ARGV[3], 'lastSeenAt', ARGV[4], 'username', ARGV[7], 'role', ARGV[8], 'verified', ARGV[9])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('SADD', KEYS[2], ARGV[10])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return 1
`,
  memory: (
    redis,
    [session = '', userSessions = ''],
    [
      userId = '',
      deviceId = '',
      createdAt = '',
      lastSeenAt = '',
      ttlMs = '',
      listTtlMs = '',
      username = '',
      role = '',
      verified = '',
      sessionKey = '',
    ],
  ) => {
    redis.hSet(session, { userId, deviceId, createdAt, lastSeenAt, username, role, verified });
    redis.expire(session, Number(ttlMs));
    redis.sAdd(userSessions, sessionKey);
    redis.expire(userSessions, Number(listTtlMs));
    return 1;
  },
});

/**
 * KEYS: [session]. ARGV: [lastSeenAt, ttlMs]. Records a use and extends the expiry only if the
 * session still exists: a logout racing with a request must not bring the session back.
 */
export const touchSessionScript = defineScript<number>({
  name: 'authTouchSession',
  lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], 'lastSeenAt', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`,
  memory: (redis, [session = ''], [lastSeenAt = '', ttlMs = '']) => {
    if (redis.ttlMs(session) === -2) return 0;
    redis.hSet(session, { lastSeenAt });
    redis.expire(session, Number(ttlMs));
    return 1;
  },
});

/**
 * KEYS: [session]. ARGV: [username, role, verified]. Rewrites the claims only if the session
 * still exists: a logout racing with a verification must not bring the session back.
 */
export const setClaimsScript = defineScript<number>({
  name: 'authSetSessionClaims',
  lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], 'username', ARGV[1], 'role', ARGV[2], 'verified', ARGV[3])
return 1
`,
  memory: (redis, [session = ''], [username = '', role = '', verified = '']) => {
    if (redis.ttlMs(session) === -2) return 0;
    redis.hSet(session, { username, role, verified });
    return 1;
  },
});

const claimArguments = (claims: SessionClaims) => [
  claims.username,
  claims.role,
  claims.isEmailVerified ? '1' : '0',
];

function claimsFrom(fields: Record<string, string>): SessionClaims | undefined {
  const { username, role, verified } = fields;
  if (username === undefined || (role !== 'user' && role !== 'admin')) return undefined;
  if (verified !== '1' && verified !== '0') return undefined;
  return { username, role, isEmailVerified: verified === '1' };
}

const sessionKeyPrefix = 'auth:session:';
const sessionKey = (id: string) => `${sessionKeyPrefix}${sha256(id)}`;
/** The SHA-256 of the session id a key of a user's list names (what revocations carry). */
const hashOfKey = (key: string) => key.slice(sessionKeyPrefix.length);
const userSessionsKey = (userId: string) => `auth:user-sessions:${userId}`;

/** What a session is known by outside auth (revocations): the SHA-256 hex of its id. */
export const sessionHash = (id: string): string => sha256(id);

/**
 * Sessions in the live store (Redis in distributed mode). Only a hash of the id is stored, so
 * reading the store does not yield usable cookies. The store's expiry removes idle sessions;
 * the caller still checks the rules against its own clock (`isSessionAlive`).
 */
export class SessionStore {
  constructor(private readonly store: LiveStore) {}

  async create(session: Session & { claims: SessionClaims }): Promise<void> {
    const key = sessionKey(session.id);
    const list = userSessionsKey(session.userId);
    await this.store.run(
      createSessionScript,
      [key, list],
      [
        session.userId,
        session.deviceId,
        session.createdAt.getTime(),
        session.lastSeenAt.getTime(),
        remainingMs(session, session.lastSeenAt),
        sessionRules.absoluteTimeoutMs,
        ...claimArguments(session.claims),
        key,
      ],
    );
    await this.forgetEnded(list, key);
  }

  async find(id: string): Promise<Session | null> {
    const fields = await this.store.hGetAll(sessionKey(id));
    const { userId, deviceId = '', createdAt, lastSeenAt } = fields;
    if (userId === undefined || createdAt === undefined || lastSeenAt === undefined) return null;
    const claims = claimsFrom(fields);
    return {
      id,
      userId,
      deviceId,
      createdAt: new Date(Number(createdAt)),
      lastSeenAt: new Date(Number(lastSeenAt)),
      ...(claims ? { claims } : {}),
    };
  }

  /** Rewrites one session's claims; false when the session was deleted meanwhile. */
  async setClaims(session: Pick<Session, 'id'>, claims: SessionClaims): Promise<boolean> {
    const set = await this.store.run(
      setClaimsScript,
      [sessionKey(session.id)],
      claimArguments(claims),
    );
    return set === 1;
  }

  /**
   * Rewrites the claims of every live session of a user (verified, role changed); the hashes
   * of the sessions listed (`sessionHash`), for the revocation that tells the gateways.
   */
  async setClaimsOfUser(userId: string, claims: SessionClaims): Promise<string[]> {
    const keys = await this.store.sMembers(userSessionsKey(userId));
    await Promise.all(
      keys.map((key) => this.store.run(setClaimsScript, [key], claimArguments(claims))),
    );
    return keys.map(hashOfKey);
  }

  /** Records a use at `now`; false when the session was deleted meanwhile. */
  async touch(session: Session, now: Date): Promise<boolean> {
    const touched = await this.store.run(
      touchSessionScript,
      [sessionKey(session.id)],
      [now.getTime(), remainingMs(session, now)],
    );
    return touched === 1;
  }

  async delete(session: Pick<Session, 'id' | 'userId'>): Promise<void> {
    const key = sessionKey(session.id);
    await this.store.del(key);
    await this.store.sRem(userSessionsKey(session.userId), key);
  }

  /** Ends every session of a user (password change); the hashes of those it ended. */
  async deleteAllOf(userId: string): Promise<string[]> {
    const list = userSessionsKey(userId);
    const keys = await this.store.sMembers(list);
    await this.store.del(...keys, list);
    return keys.map(hashOfKey);
  }

  /** Drops list entries whose session has expired, so a user's list does not grow for ever. */
  private async forgetEnded(list: string, keep: string): Promise<void> {
    const keys = await this.store.sMembers(list);
    for (const key of keys) {
      if (key !== keep && (await this.store.ttlMs(key)) === -2) await this.store.sRem(list, key);
    }
  }
}

/** The store expiry for a use at `now`: the idle limit, never past the absolute one. */
function remainingMs(session: Pick<Session, 'createdAt'>, now: Date): number {
  const expiresAt = sessionExpiresAt({ createdAt: session.createdAt, lastSeenAt: now });
  return Math.max(1, expiresAt.getTime() - now.getTime());
}
