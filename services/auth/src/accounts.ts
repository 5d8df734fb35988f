import { randomUUID } from 'node:crypto';
import { commonErrors, type Clock, type Logger } from '@underdog/kit';
import type { AuthEvents } from './adapters/events';
import { hashSecret, randomSecret, verifySecret } from './adapters/secrets';
import type { SessionStore } from './adapters/sessions';
import type { UsersRepository } from './adapters/users';
import { authErrors } from './domain/errors';
import { claimsOf, type Session } from './domain/session';
import { emptyStatistics, type Role, type User } from './domain/user';
import { maxUsernameAttempts, usernameBase, usernameCandidate } from './domain/username';
import { displayNameMessages, imitatesStaff } from './domain/display-name';
import { passwordLength } from './domain/validation';
import { AccountSessions } from './account-sessions';
import type {
  AccountsDependencies,
  AdminAccount,
  Registration,
  SessionActor,
  SignedIn,
} from './account-types';
import { EmailVerification } from './email-verification';

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
  private readonly accountSessions: AccountSessions;
  private readonly emailVerification: EmailVerification;

  constructor(private readonly deps: AccountsDependencies) {
    this.users = deps.users;
    this.sessions = deps.sessions;
    this.events = deps.events;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.accountSessions = new AccountSessions(deps);
    this.emailVerification = new EmailVerification(deps, this.accountSessions);
  }

  async register(registration: Registration): Promise<SignedIn> {
    // Checked first so a taken e-mail costs no hashing; the unique index still decides races.
    if (await this.users.byEmail(registration.email)) throw authErrors.emailTaken();
    const now = this.clock.now();
    const passwordHash = await hashSecret(registration.password);
    const { verification, code, token } = await this.emailVerification.newVerification(now);
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
    return { user, session: await this.accountSessions.openSession(user, registration.deviceId) };
  }

  /** Every failure is the same error; an unknown e-mail costs the same hashing as a known one. */
  async login(email: string, password: string, deviceId: string): Promise<SignedIn> {
    // No stored password is longer, and hashing megabytes on request would be an easy DoS.
    if (password.length > passwordLength.max) throw authErrors.invalidCredentials();
    const user = await this.users.byEmail(email);
    const matches = await verifySecret(user?.passwordHash ?? this.deps.dummyPasswordHash, password);
    if (!user || !matches) throw authErrors.invalidCredentials();
    this.logger.info({ userId: user.id }, 'user logged in');
    return { user, session: await this.accountSessions.openSession(user, deviceId) };
  }

  /** Ends the session; an unknown or expired one is already ended (`AccountSessions`). */
  async logout(sessionId: string): Promise<void> {
    return this.accountSessions.logout(sessionId);
  }

  /** The session's user; the use extends the idle timeout (`AccountSessions`). */
  async resolveSession(sessionId: string): Promise<SignedIn> {
    return this.accountSessions.resolveSession(sessionId);
  }

  /** The session's user as an actor, from the session record alone (`AccountSessions`). */
  async resolveActor(sessionId: string): Promise<SessionActor> {
    return this.accountSessions.resolveActor(sessionId);
  }

  /** Verifies with the 6-digit code of the session's user, or of `email` (`EmailVerification`). */
  async verifyWithCode(
    code: string,
    owner: { sessionId?: string; email?: string },
  ): Promise<User | null> {
    return this.emailVerification.verifyWithCode(code, owner);
  }

  /** Verifies with the link token (`EmailVerification`). */
  async verifyWithToken(token: string, sessionId?: string): Promise<User> {
    return this.emailVerification.verifyWithToken(token, sessionId);
  }

  /** Sends a new code and link, replacing the old ones (`EmailVerification`). */
  async resendVerification(email: string): Promise<void> {
    return this.emailVerification.resendVerification(email);
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
    const fresh = await this.accountSessions.openSession(user, session.deviceId);
    await this.accountSessions.revoke(user.id, ended, { case: 'passwordChanged', value: {} });
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
        batch.map((user, offset) =>
          this.accountSessions.openSession(user, `bench-${label}-${start + offset}`),
        ),
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
