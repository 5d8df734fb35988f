import { ADMIN_ROLE } from '@underdog/kit';
import { LRUCache } from 'lru-cache';
import type { GatewayClients } from './clients';

type AuthClient = GatewayClients['auth'];
type SessionActorAnswer = Awaited<ReturnType<AuthClient['getSessionActor']>>;

/**
 * An LRU cache of at most `max` entries, each of which expires `ttlMs` (> 0: lru-cache reads 0 as
 * "never") after it is set. `now` is the clock (tests pass their own); it is read on every
 * lookup rather than lru-cache's default of once per millisecond of real time, which a test
 * clock outruns.
 */
export function expiringCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  max: number,
  ttlMs: number,
  now?: () => number,
): LRUCache<K, V> {
  if (!(ttlMs > 0)) throw new RangeError(`an expiring cache needs a positive TTL, not ${ttlMs}`);
  return new LRUCache<K, V>({
    max,
    ttl: ttlMs,
    ttlResolution: 0,
    // lru-cache reads a start time of 0 as "no TTL": shifted by 1 ms, a test clock's 0 is a time.
    ...(now && { perf: { now: () => now() + 1 } }),
  });
}

export interface SessionActorsOptions {
  /** How long a verified session's actor is reused without asking auth (default 60 s). */
  ttlMs?: number;
  /**
   * How long an ending is remembered for the sockets opened before it (default 15 min, the
   * longest a socket reuses its session: `sessionMaxAgeMs`).
   */
  endedMemoryMs?: number;
  /** Sessions held at most (default 100,000: about 30 MB). */
  max?: number;
  now?: () => number;
}

/** How long a verified session's actor is reused by this gateway without asking auth. */
export const SESSION_ACTOR_TTL_MS = 60_000;

/**
 * The session → actor lookups of this gateway, so a vote over HTTP does not cost a
 * `GetSessionActor` call each time (a player votes once a round, so the TTL is longer than a
 * round). Only a verified player's actor is kept: a visitor's or an unverified player's is
 * asked for every time (a verification elsewhere must show at once), and so is an admin's (few
 * requests, and a logout or password change through another replica must end them at once). A session this gateway
 * ends (logout, a password change) is forgotten at once and remembered as ended, so the sockets
 * that opened with it re-read it before their next action (`SocketSession`). A logout through
 * another replica shows here within the TTL.
 */
export class SessionActors {
  /** Absent with a TTL of 0, which keeps nothing (the tests' `sessionTtlMs: 0`). */
  private readonly actors?: LRUCache<string, Promise<SessionActorAnswer>>;
  private readonly endings?: LRUCache<string, number>;
  private readonly now: () => number;

  constructor(
    private readonly auth: AuthClient,
    options: SessionActorsOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    const max = options.max ?? 100_000;
    const ttlMs = options.ttlMs ?? SESSION_ACTOR_TTL_MS;
    const endedMemoryMs = options.endedMemoryMs ?? 15 * 60_000;
    if (ttlMs > 0) this.actors = expiringCache(max, ttlMs, options.now);
    if (endedMemoryMs > 0) this.endings = expiringCache(max, endedMemoryMs, options.now);
  }

  /** `AuthService.GetSessionActor`, answered from the cache when it can be. */
  lookUp(sessionId: string): Promise<SessionActorAnswer> {
    const cached = this.actors?.get(sessionId);
    if (cached) return cached;
    const pending = this.auth.getSessionActor({ sessionId });
    // Shared by the lookups of the same moment; kept only if it is a verified player's.
    this.actors?.set(sessionId, pending);
    pending.then(
      (answer) => {
        if (!answer.actor?.isEmailVerified || answer.actor.role === ADMIN_ROLE) {
          this.forget(sessionId, pending);
        }
      },
      () => this.forget(sessionId, pending),
    );
    return pending;
  }

  /** The session was ended through this gateway: no cached actor, and sockets re-read it. */
  ended(sessionId: string): void {
    this.actors?.delete(sessionId);
    this.endings?.set(sessionId, this.now());
  }

  /** Whether this gateway ended the session at or after `since` (epoch ms). */
  endedSince(sessionId: string, since: number): boolean {
    const endedAt = this.endings?.get(sessionId);
    return endedAt !== undefined && endedAt >= since;
  }

  /**
   * The auth client the rest of the gateway uses: `getSessionActor` through this cache, and a
   * logout or a password change (which ends the old session) forgets the session first.
   */
  client(): AuthClient {
    const cached: Partial<AuthClient> = {
      getSessionActor: (request) => this.lookUp(request.sessionId ?? ''),
      logout: (request, options) => {
        this.ended(request.sessionId ?? '');
        return this.auth.logout(request, options);
      },
      changePassword: (request, options) => {
        this.ended(request.sessionId ?? '');
        return this.auth.changePassword(request, options);
      },
    };
    return Object.assign(Object.create(this.auth) as AuthClient, cached);
  }

  private forget(sessionId: string, pending: Promise<SessionActorAnswer>): void {
    if (this.actors?.get(sessionId) === pending) this.actors.delete(sessionId);
  }
}
