import { randomUUID } from 'node:crypto';
import { commonErrors, isAppError, type AppError, type Clock, type Logger } from '@underdog/kit';
import type { AuthEvents, SessionRevocationKind } from './adapters/events';
import {
  hashSecret,
  randomSecret,
  randomVerificationCode,
  sha256,
  verifySecret,
} from './adapters/secrets';
import { sessionHash, type SessionStore } from './adapters/sessions';
import type { ResendThrottle } from './adapters/throttle';
import type { UsersRepository } from './adapters/users';
import { authErrors } from './domain/errors';
import {
  claimsOf,
  isSessionAlive,
  sameClaims,
  type Session,
  type SessionClaims,
} from './domain/session';
import { emptyStatistics, type PendingVerification, type Role, type User } from './domain/user';
import { maxUsernameAttempts, usernameBase, usernameCandidate } from './domain/username';
import { displayNameMessages, imitatesStaff } from './domain/display-name';
import { passwordLength } from './domain/validation';
import {
  acceptsToken,
  codeRefusal,
  mayResend,
  hasAttemptsLeft,
  verificationExpiry,
  type CodeChannel,
  type CodeRefusal,
} from './domain/verification';

export interface AccountsDependencies {
  users: UsersRepository;
  sessions: SessionStore;
  resendThrottle: ResendThrottle;
  events: AuthEvents;
  clock: Clock;
  logger: Logger;
  /** A hash of a random password: logins for unknown e-mails verify against it (same timing). */
  dummyPasswordHash: string;
}

/** A user with a session just opened or resolved for them. */
export interface SignedIn {
  user: User;
  session: Session;
}

/** A session resolved to what acting for its user needs, without reading the user. */
export interface SessionActor {
  userId: string;
  claims: SessionClaims;
  session: Session;
}

/** A fresh verification: what is stored, and the secrets that only the e-mail carries. */
interface NewVerification {
  verification: PendingVerification;
  code: string;
  token: string;
}

/** Inputs are validated and normalised by the handlers; e-mails arrive trimmed and lower-case. */
export interface Registration {
  email: string;
  displayName: string;
  password: string;
  deviceId: string;
}

export interface AdminAccount {
  email: string;
  password: string;
  displayName: string;
}

/** A verification attempt that lost a race should look again, but not for ever. */
const MAX_CODE_ROUNDS = 3;

/**
 * The auth use cases: accounts, credentials, sessions, e-mail verification and roles. The rules
 * themselves are pure functions in `domain/`; this class sequences them with the adapters.
 */
export class Accounts {
  private readonly users: UsersRepository;
  private readonly sessions: SessionStore;
  private readonly events: AuthEvents;
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(private readonly deps: AccountsDependencies) {
    this.users = deps.users;
    this.sessions = deps.sessions;
    this.events = deps.events;
    this.clock = deps.clock;
    this.logger = deps.logger;
  }

  async register(registration: Registration): Promise<SignedIn> {
    // Checked first so a taken e-mail costs no hashing; the unique index still decides races.
    if (await this.users.byEmail(registration.email)) throw authErrors.emailTaken();
    const now = this.clock.now();
    const passwordHash = await hashSecret(registration.password);
    const { verification, code, token } = await this.newVerification(now);
    const user = await this.insertWithUsername({
      id: randomUUID(),
      email: registration.email,
      displayName: registration.displayName,
      passwordHash,
      role: 'user',
      isEmailVerified: false,
      emailVerificationSentAt: now,
      verification,
      statistics: emptyStatistics(),
      createdAt: now,
    });
    if (user === 'email-taken') throw authErrors.emailTaken();
    // The registration e-mail counts as a send: a resend right after it waits like any other.
    await this.deps.resendThrottle.claim(user.email);
    await this.events.verificationEmailRequested(user.id, {
      email: user.email,
      displayName: user.displayName,
      code,
      token,
      expiresAt: verification.expiresAt,
    });
    await this.events.userChanged(user.id, {
      case: 'registered',
      value: { email: user.email, displayName: user.displayName, username: user.username },
    });
    this.logger.info({ userId: user.id }, 'user registered');
    return { user, session: await this.openSession(user, registration.deviceId) };
  }

  /** Every failure is the same error; an unknown e-mail costs the same hashing as a known one. */
  async login(email: string, password: string, deviceId: string): Promise<SignedIn> {
    // No stored password is longer, and hashing megabytes on request would be an easy DoS.
    if (password.length > passwordLength.max) throw authErrors.invalidCredentials();
    const user = await this.users.byEmail(email);
    const matches = await verifySecret(user?.passwordHash ?? this.deps.dummyPasswordHash, password);
    if (!user || !matches) throw authErrors.invalidCredentials();
    this.logger.info({ userId: user.id }, 'user logged in');
    return { user, session: await this.openSession(user, deviceId) };
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

  /**
   * Verifies with the 6-digit code of the session's user, or else of the user with `email`.
   * Every attempt is counted before the code is compared, so even concurrent guesses get five
   * tries in all; the fifth wrong one voids the code.
   *
   * The session's own user learns why a code failed (CODE_INVALID, CODE_VOIDED, CODE_EXPIRED,
   * NO_CODE) and gets its user back, also when already verified. A caller naming an e-mail
   * instead learns nothing about the account: whatever its state (unknown, verified, no code,
   * voided, expired) a wrong code is the one CODE_INVALID, after the same argon2 comparison;
   * the right code verifies, and the answer is null: the user goes only to its own session.
   */
  async verifyWithCode(
    code: string,
    owner: { sessionId?: string; email?: string },
  ): Promise<User | null> {
    if (owner.sessionId) {
      const signedIn = await this.resolveSessionOrNull(owner.sessionId);
      if (signedIn) return this.verifyOwnCode(signedIn.user, code);
    }
    if (!owner.email) throw commonErrors.noSession();
    await this.verifyCodeByEmail(owner.email, code);
    return null;
  }

  /**
   * Verifies with the link token. A link used twice finds nothing; if the caller's session
   * shows the e-mail already verified, that is still a success.
   */
  async verifyWithToken(token: string, sessionId?: string): Promise<User> {
    const user = token ? await this.users.byTokenHash(sha256(token)) : null;
    const pending = user?.verification;
    if (user && pending && acceptsToken(pending, this.clock.now())) {
      return this.completeVerification(user, pending);
    }
    const signedIn = sessionId ? await this.resolveSessionOrNull(sessionId) : null;
    if (signedIn?.user.isEmailVerified) return signedIn.user;
    throw authErrors.tokenInvalid();
  }

  /**
   * Sends a new code and link, replacing the old ones. Unknown and already verified addresses
   * get the same answer without an e-mail, after the same work, so the answer reveals nothing.
   */
  async resendVerification(email: string): Promise<void> {
    if (!(await this.deps.resendThrottle.claim(email))) throw authErrors.resendTooSoon();
    const now = this.clock.now();
    const { verification, code, token } = await this.newVerification(now);
    const user = await this.users.byEmail(email);
    if (!user || user.isEmailVerified) return;
    if (!mayResend(user.emailVerificationSentAt, now)) throw authErrors.resendTooSoon();
    const updated = await this.users.replaceVerification(
      user.id,
      user.emailVerificationSentAt,
      verification,
      now,
    );
    if (!updated) {
      // Another request got there first: it verified the address or sent a code just now.
      if ((await this.users.byId(user.id))?.isEmailVerified) return;
      throw authErrors.resendTooSoon();
    }
    await this.events.verificationEmailRequested(user.id, {
      email: updated.email,
      displayName: updated.displayName,
      code,
      token,
      expiresAt: verification.expiresAt,
    });
    this.logger.info({ userId: user.id }, 'verification e-mail resent');
  }

  /** Only the staff (admins) may take a name that passes for the staff; see `display-name.ts`. */
  async updateProfile(sessionId: string, displayName: string): Promise<User> {
    const { user } = await this.resolveSession(sessionId);
    if (user.displayName === displayName) return user;
    if (user.role !== 'admin' && imitatesStaff(displayName)) {
      throw commonErrors.invalid(displayNameMessages.reserved);
    }
    const updated = await this.users.setDisplayName(user.id, displayName);
    if (!updated) throw commonErrors.noSession();
    await this.events.userChanged(user.id, { case: 'profileUpdated', value: { displayName } });
    return updated;
  }

  /** Ends every session of the user, the caller's included, and opens a new one for the caller. */
  async changePassword(sessionId: string, current: string, next: string): Promise<Session> {
    const { user, session } = await this.resolveSession(sessionId);
    if (!(await verifySecret(user.passwordHash, current))) throw authErrors.wrongPassword();
    if (!(await this.users.setPasswordHash(user.id, await hashSecret(next)))) {
      throw commonErrors.noSession();
    }
    const ended = await this.sessions.deleteAllOf(user.id);
    const fresh = await this.openSession(user, session.deviceId);
    await this.revoke(user.id, ended, { case: 'passwordChanged', value: {} });
    await this.events.userChanged(user.id, { case: 'passwordChanged', value: {} });
    this.logger.info({ userId: user.id }, 'password changed; other sessions ended');
    return fresh;
  }

  async setRole(email: string, role: Role): Promise<User> {
    const result = await this.users.setRole(email, role);
    if (!result) throw authErrors.userNotFound();
    // Also when unchanged: a retry after a failed rewrite must still reach every open session,
    // and so must the revocation (a failed publish fails the call: the operator runs it again).
    const sessions = await this.sessions.setClaimsOfUser(result.user.id, claimsOf(result.user));
    await this.events.sessionsRevoked(result.user.id, sessions, {
      case: 'roleChanged',
      value: { role },
    });
    if (result.changed) {
      await this.events.userChanged(result.user.id, { case: 'roleChanged', value: { role } });
      this.logger.info({ userId: result.user.id, role }, 'role changed');
    }
    return result.user;
  }

  /**
   * The benchmark's players (load/README.md): `count` verified users with a session each, made
   * in bulk. One hash of a random password nobody knows serves them all, so none can log in;
   * no e-mail and no `user.events` go out. Only reachable with BENCHMARK_SEED=on.
   */
  async seedBenchmarkUsers(
    count: number,
    label: string,
  ): Promise<Array<{ user: User; session: Session }>> {
    const now = this.clock.now();
    const passwordHash = await hashSecret(randomSecret());
    const users: User[] = Array.from({ length: count }, (_, index) => ({
      id: randomUUID(),
      email: `bench-${label}-${index}@bench.underdog.invalid`,
      username: `b_${label}_${index}`,
      displayName: `Bench ${label} ${index}`,
      passwordHash,
      role: 'user',
      isEmailVerified: true,
      emailVerificationSentAt: null,
      statistics: emptyStatistics(),
      createdAt: now,
    }));
    await this.users.insertMany(users);
    const seeded: Array<{ user: User; session: Session }> = [];
    const sessionsAtOnce = 200;
    for (let start = 0; start < users.length; start += sessionsAtOnce) {
      const batch = users.slice(start, start + sessionsAtOnce);
      const sessions = await Promise.all(
        batch.map((user, offset) => this.openSession(user, `bench-${label}-${start + offset}`)),
      );
      sessions.forEach((session, offset) => seeded.push({ user: batch[offset]!, session }));
    }
    this.logger.info({ count, label }, 'benchmark users seeded');
    return seeded;
  }

  /**
   * Makes sure the configured first admin exists: created verified if missing, promoted if
   * present (its password is left alone: the admin may have changed it). Idempotent, and safe
   * when several replicas start at once: the unique e-mail index picks the one that creates it.
   */
  async ensureAdmin(admin: AdminAccount): Promise<void> {
    if (await this.users.byEmail(admin.email)) {
      await this.setRole(admin.email, 'admin');
      return;
    }
    const now = this.clock.now();
    const user = await this.insertWithUsername({
      id: randomUUID(),
      email: admin.email,
      displayName: admin.displayName,
      passwordHash: await hashSecret(admin.password),
      role: 'admin',
      isEmailVerified: true,
      emailVerificationSentAt: null,
      statistics: emptyStatistics(),
      createdAt: now,
    });
    if (user === 'email-taken') {
      await this.setRole(admin.email, 'admin');
      return;
    }
    await this.events.userChanged(
      user.id,
      {
        case: 'registered',
        value: { email: user.email, displayName: user.displayName, username: user.username },
      },
      { case: 'emailVerified', value: {} },
      { case: 'roleChanged', value: { role: 'admin' } },
    );
    this.logger.info({ userId: user.id }, 'first admin created');
  }

  private async completeVerification(user: User, pending: PendingVerification): Promise<User> {
    const verified = await this.users.markVerified(user.id, pending);
    if (!verified) {
      // Used by a concurrent request: fine if that one verified the address.
      const current = await this.users.byId(user.id);
      if (current?.isEmailVerified) return current;
      throw authErrors.codeInvalid();
    }
    await this.sessions.setClaimsOfUser(user.id, claimsOf(verified));
    await this.events.userChanged(user.id, { case: 'emailVerified', value: {} });
    this.logger.info({ userId: user.id }, 'e-mail verified');
    return verified;
  }

  /** The session's own user: every refusal says why, and a verified user is a success. */
  private async verifyOwnCode(user: User, code: string): Promise<User> {
    const check = await this.checkCode(user, code, 'session');
    if (check.outcome === 'refused') throw refusalError(check.refusal);
    return check.user;
  }

  /** Nothing but "verified" or the one CODE_INVALID, after one argon2 comparison either way. */
  private async verifyCodeByEmail(email: string, code: string): Promise<void> {
    const user = await this.users.byEmail(email);
    const check = user ? await this.checkCode(user, code, 'email') : undefined;
    if (check?.outcome === 'verified') return;
    if (check?.outcome !== 'refused' || !check.compared) {
      await verifySecret(this.deps.dummyPasswordHash, code);
    }
    throw authErrors.codeInvalid();
  }

  /**
   * Checks `code` against the user's pending verification, verifying the user if it matches.
   * A caller by e-mail whose tries are spent gets CODE_INVALID without a comparison.
   */
  private async checkCode(owner: User, code: string, channel: CodeChannel): Promise<CodeCheck> {
    let user = owner;
    for (let round = 0; round < MAX_CODE_ROUNDS; round += 1) {
      if (user.isEmailVerified) return { outcome: 'already-verified', user };
      const now = this.clock.now();
      const pending = user.verification;
      const refusal = codeRefusal(pending, now);
      if (refusal || !pending) return refused(refusal ?? 'NO_CODE', false);
      if (!hasAttemptsLeft(pending, channel)) return refused('CODE_INVALID', false);
      const spent = await this.users.spendCodeAttempt(user.id, pending, channel);
      if (spent) {
        if (await verifySecret(pending.codeHash, code)) {
          return { outcome: 'verified', user: await this.completeVerification(user, pending) };
        }
        const attempts =
          channel === 'session'
            ? spent.verification?.failedAttempts
            : spent.verification?.failedEmailAttempts;
        this.logger.info({ userId: user.id, attempts, channel }, 'wrong verification code');
        const voided = codeRefusal(spent.verification, now) === 'CODE_VOIDED';
        return refused(voided ? 'CODE_VOIDED' : 'CODE_INVALID', true);
      }
      // Verified, resent or voided meanwhile: decide on the current state.
      const current = await this.users.byId(user.id);
      if (!current) return refused('CODE_INVALID', false);
      user = current;
    }
    return refused('CODE_INVALID', false);
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
  private async revoke(
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

  private async resolveSessionOrNull(sessionId: string): Promise<SignedIn | null> {
    try {
      return await this.resolveSession(sessionId);
    } catch (error) {
      if (isAppError(error) && error.reason === 'NO_SESSION') return null;
      throw error;
    }
  }

  private async openSession(user: User, deviceId: string): Promise<Session> {
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

  private async newVerification(now: Date): Promise<NewVerification> {
    const code = randomVerificationCode();
    const token = randomSecret();
    return {
      verification: {
        codeHash: await hashSecret(code),
        tokenHash: sha256(token),
        expiresAt: verificationExpiry(now),
        failedAttempts: 0,
        failedEmailAttempts: 0,
      },
      code,
      token,
    };
  }

  /** Inserts with the derived username, or the next candidate while it is taken. */
  private async insertWithUsername(user: Omit<User, 'username'>): Promise<User | 'email-taken'> {
    const base = usernameBase(user.email);
    for (let attempt = 0; attempt < maxUsernameAttempts; attempt += 1) {
      const candidate: User = { ...user, username: usernameCandidate(base, attempt, Math.random) };
      const outcome = await this.users.insert(candidate);
      if (outcome === 'inserted') return candidate;
      if (outcome === 'email-taken') return 'email-taken';
    }
    throw new Error(`no free username for ${base} after ${maxUsernameAttempts} attempts`);
  }
}

/** Why a code did not verify: one of the domain's refusals, or simply the wrong code. */
type Refusal = CodeRefusal | 'CODE_INVALID';

/** What one code check came to; `compared` says whether a stored code hash was compared. */
type CodeCheck =
  | { outcome: 'verified' | 'already-verified'; user: User }
  | { outcome: 'refused'; refusal: Refusal; compared: boolean };

function refused(refusal: Refusal, compared: boolean): CodeCheck {
  return { outcome: 'refused', refusal, compared };
}

function refusalError(refusal: Refusal): AppError {
  switch (refusal) {
    case 'NO_CODE':
      return authErrors.noCode();
    case 'CODE_VOIDED':
      return authErrors.codeVoided();
    case 'CODE_EXPIRED':
      return authErrors.codeExpired();
    case 'CODE_INVALID':
      return authErrors.codeInvalid();
  }
}
