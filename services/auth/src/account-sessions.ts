/**
 * The session use cases: resolving a session (to its user, or to an actor from the record alone),
 * opening one, logging out, and the expiry and revocation every ending of a session goes through.
 */
import { commonErrors, isAppError, type Clock, type Logger } from '@underdog/kit';
import type { AuthEvents, SessionRevocationKind } from './adapters/events';
import { randomSecret } from './adapters/secrets';
import { sessionHash, type SessionStore } from './adapters/sessions';
import type { UsersRepository } from './adapters/users';
import { claimsOf, isSessionAlive, sameClaims, type Session } from './domain/session';
import type { User } from './domain/user';
import type { AccountsDependencies, SessionActor, SignedIn } from './account-types';

/** Sessions for `Accounts`: the store's records, the user's claims in them, their ending. */
export class AccountSessions {
  private readonly users: UsersRepository;
  private readonly sessions: SessionStore;
  private readonly events: AuthEvents;
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(deps: AccountsDependencies) {
    this.users = deps.users;
    this.sessions = deps.sessions;
    this.events = deps.events;
    this.clock = deps.clock;
    this.logger = deps.logger;
  }

  /** Ends the session; an unknown or expired one is already ended. */
  async logout(sessionId: string): Promise<void> {
    const session = sessionId ? await this.sessions.find(sessionId) : null;
    if (!session) return;
    await this.sessions.delete(session);
    await this.revoke(session.userId, [sessionHash(session.id)], { case: 'loggedOut', value: {} });
  }

  /** The session's user; the use extends the idle timeout. */
  async resolveSession(sessionId: string): Promise<SignedIn> {
    const session = sessionId ? await this.sessions.find(sessionId) : null;
    if (!session) throw commonErrors.noSession();
    const now = this.clock.now();
    if (!isSessionAlive(session, now)) await this.expire(session);
    const user = await this.users.byId(session.userId);
    if (!user) {
      await this.sessions.delete(session);
      throw commonErrors.noSession();
    }
    if (!(await this.sessions.touch(session, now))) throw commonErrors.noSession();
    const claims = claimsOf(user);
    // A record from before claims, or one a failed rewrite left behind, is repaired here.
    if (!sameClaims(session.claims, claims)) await this.sessions.setClaims(session, claims);
    return { user, session: { ...session, lastSeenAt: now, claims } };
  }

  /**
   * The session's user as an actor, from the session record alone (no user read): what every
   * delegated call and every `/ws` action needs, thousands of times a round. Same expiry rules
   * and touch as `resolveSession`; a record without claims falls back to it.
   */
  async resolveActor(sessionId: string): Promise<SessionActor> {
    const session = sessionId ? await this.sessions.find(sessionId) : null;
    if (!session) throw commonErrors.noSession();
    if (!session.claims) {
      const signedIn = await this.resolveSession(sessionId);
      return {
        userId: signedIn.user.id,
        claims: claimsOf(signedIn.user),
        session: signedIn.session,
      };
    }
    const now = this.clock.now();
    if (!isSessionAlive(session, now)) await this.expire(session);
    if (!(await this.sessions.touch(session, now))) throw commonErrors.noSession();
    return {
      userId: session.userId,
      claims: session.claims,
      session: { ...session, lastSeenAt: now },
    };
  }

  /** A session found past its idle or absolute timeout: deleted, revoked, and refused. */
  private async expire(session: Session): Promise<never> {
    await this.sessions.delete(session);
    await this.revoke(session.userId, [sessionHash(session.id)], { case: 'expired', value: {} });
    throw commonErrors.noSession();
  }

  /**
   * Tells every gateway that sessions ended (logout, password change, expiry). The ending is
   * stored already, so a failed publish does not fail the player's request (a retried logout
   * would find nothing to end, a retried password change a wrong current password): it is
   * logged, and the gateways that missed it see the ending when they next read the session
   * (at most `sessionTtlMs` later, docs/api-ws.md).
   */
  async revoke(
    userId: string,
    sessionHashes: string[],
    kind: SessionRevocationKind,
  ): Promise<void> {
    try {
      await this.events.sessionsRevoked(userId, sessionHashes, kind);
    } catch (error) {
      this.logger.error(
        { err: error, userId, sessions: sessionHashes.length, reason: kind.case },
        'session revocation not published; gateways see it at their next session read',
      );
    }
  }

  async resolveSessionOrNull(sessionId: string): Promise<SignedIn | null> {
    try {
      return await this.resolveSession(sessionId);
    } catch (error) {
      if (isAppError(error) && error.reason === 'NO_SESSION') return null;
      throw error;
    }
  }

  async openSession(user: User, deviceId: string): Promise<Session> {
    const now = this.clock.now();
    const session = {
      id: randomSecret(),
      userId: user.id,
      deviceId,
      createdAt: now,
      lastSeenAt: now,
      claims: claimsOf(user),
    };
    await this.sessions.create(session);
    return session;
  }
}
