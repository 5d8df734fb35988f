import { ADMIN_ROLE } from '@underdog/kit';
import type { GatewayClients } from './clients';

type AuthClient = GatewayClients['auth'];
type SessionActorAnswer = Awaited<ReturnType<AuthClient['getSessionActor']>>;

/**
 * A bounded map whose entries expire: the least recently used entry goes first once `max` is
 * reached (a Map keeps insertion order; a hit re-inserts). Small on purpose: the gateway's
 * caches need get/set/delete and nothing else.
 */
export class ExpiringCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();

  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    if (this.entries.size > this.max) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
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
  private readonly actors: ExpiringCache<string, Promise<SessionActorAnswer>>;
  private readonly endings: ExpiringCache<string, number>;
  private readonly now: () => number;

  constructor(
    private readonly auth: AuthClient,
    options: SessionActorsOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    const max = options.max ?? 100_000;
    this.actors = new ExpiringCache(max, options.ttlMs ?? SESSION_ACTOR_TTL_MS, this.now);
    this.endings = new ExpiringCache(max, options.endedMemoryMs ?? 15 * 60_000, this.now);
  }

  /** `AuthService.GetSessionActor`, answered from the cache when it can be. */
  lookUp(sessionId: string): Promise<SessionActorAnswer> {
    const cached = this.actors.get(sessionId);
    if (cached) return cached;
    const pending = this.auth.getSessionActor({ sessionId });
    // Shared by the lookups of the same moment; kept only if it is a verified player's.
    this.actors.set(sessionId, pending);
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
    this.actors.delete(sessionId);
    this.endings.set(sessionId, this.now());
  }

  /** Whether this gateway ended the session at or after `since` (epoch ms). */
  endedSince(sessionId: string, since: number): boolean {
    const endedAt = this.endings.get(sessionId);
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
    if (this.actors.get(sessionId) === pending) this.actors.delete(sessionId);
  }
}
