import { createHash } from 'node:crypto';
import { eventConsumer, type EventBus } from '@underdog/bus';
import { ADMIN_ROLE, type Component, type Logger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  SessionRevocationSchema,
  fromBinary,
  timestampMs,
  type SessionRevocation,
} from '@underdog/proto';
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
 * requests, and a demotion must show at once).
 *
 * A session that ended or changed is forgotten at once and remembered as revoked, so the
 * sockets that opened with it read it again before their next action (`SocketSession`): the
 * ones this gateway ends itself (logout, a password change: `ended`), and every one the auth
 * service announces on `session.revocations` (`revoked`, from `revocationConsumer`): a logout
 * through any gateway, a password change (all the user's sessions), a role change, an expiry.
 * Revocations name sessions by the SHA-256 of their id, so this cache is keyed by it too.
 */
export class SessionActors {
  /** Absent with a TTL of 0, which keeps nothing (the tests' `sessionTtlMs: 0`). */
  private readonly actors?: LRUCache<string, Promise<SessionActorAnswer>>;
  private readonly endings?: LRUCache<string, number>;
  /** When each session looked up lately ends if not used again (its last answer's `expiresAt`). */
  private readonly expiries?: LRUCache<string, number>;
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
    if (endedMemoryMs > 0) {
      this.endings = expiringCache(max, endedMemoryMs, options.now);
      // A socket reads its session again at least every `endedMemoryMs` (sessionMaxAgeMs), and
      // each read records the expiry anew: remembering it longer would tell it nothing.
      this.expiries = expiringCache(max, endedMemoryMs, options.now);
    }
  }

  /** `AuthService.GetSessionActor`, answered from the cache when it can be. */
  lookUp(sessionId: string): Promise<SessionActorAnswer> {
    const hash = sessionHash(sessionId);
    const cached = this.actors?.get(hash);
    if (cached && !this.expired(hash)) return cached;
    const pending = this.auth.getSessionActor({ sessionId });
    // Shared by the lookups of the same moment; kept only if it is a verified player's.
    this.actors?.set(hash, pending);
    pending.then(
      (answer) => {
        const expiresAt = answer.session?.expiresAt;
        if (expiresAt) this.expiries?.set(hash, timestampMs(expiresAt));
        if (!answer.actor?.isEmailVerified || answer.actor.role === ADMIN_ROLE) {
          this.forget(hash, pending);
        }
      },
      () => this.forget(hash, pending),
    );
    return pending;
  }

  /** The session was ended through this gateway: no cached actor, and sockets re-read it. */
  ended(sessionId: string): void {
    this.revoked([sessionHash(sessionId)]);
  }

  /**
   * Sessions ended or changed (by the SHA-256 of their ids, as `session.revocations` names
   * them): no cached actor, and the sockets opened with them read them again.
   */
  revoked(sessionHashes: readonly string[]): void {
    const now = this.now();
    for (const hash of sessionHashes) {
      this.actors?.delete(hash);
      this.endings?.set(hash, now);
    }
  }

  /**
   * Whether the session was ended or changed (`revoked`) at or after `since` (epoch ms), or
   * reached, since then, the expiry its last lookup gave (an idle or absolute timeout: nobody
   * announces those, the session just stops existing).
   */
  endedSince(sessionId: string, since: number): boolean {
    if (!this.endings?.size && !this.expiries?.size) return false;
    return this.hashEndedSince(sessionHash(sessionId), since);
  }

  /** `endedSince` for a session id already hashed (`sessionHash`): a socket hashes its own once. */
  hashEndedSince(hash: string, since: number): boolean {
    const endedAt = this.endings?.get(hash);
    if (endedAt !== undefined && endedAt >= since) return true;
    const expiresAt = this.expiries?.get(hash);
    return expiresAt !== undefined && expiresAt >= since && expiresAt <= this.now();
  }

  /** Whether the session's last known expiry has passed. */
  private expired(hash: string): boolean {
    const expiresAt = this.expiries?.get(hash);
    return expiresAt !== undefined && expiresAt <= this.now();
  }

  /**
   * This replica's consumer of `session.revocations`: every gateway must see every revocation,
   * so each replica consumes with a group of its own (`groupId`, made of its instance id), from
   * the newest message (what was revoked before it started concerns no socket it holds). A
   * message that does not decode is logged and skipped (`eventConsumer`); nothing in handling
   * one can throw.
   */
  revocationConsumer(options: { bus: EventBus; groupId: string; logger: Logger }): Component {
    return eventConsumer<SessionRevocation>(options.bus, {
      name: 'session-revocations',
      groupId: options.groupId,
      topic: topics.sessionRevocations.name,
      fromBeginning: false,
      decode: (value) => fromBinary(SessionRevocationSchema, value),
      what: 'session revocation',
      logger: options.logger,
      handle: async (revocation) => {
        this.revoked(revocation.sessionHashes);
        options.logger.debug(
          { userId: revocation.userId, sessions: revocation.sessionHashes.length },
          'sessions revoked',
        );
      },
    });
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

  private forget(hash: string, pending: Promise<SessionActorAnswer>): void {
    if (this.actors?.get(hash) === pending) this.actors.delete(hash);
  }
}

/** A session as revocations name it: the SHA-256 (hex) of its id, as auth stores it. */
export function sessionHash(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}
