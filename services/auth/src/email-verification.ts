/**
 * E-mail verification: a fresh code and link, verifying with either (by the session's own user or
 * by e-mail), resending, and the counted, race-safe code check behind them.
 */
import { commonErrors, type AppError, type Clock, type Logger } from '@underdog/kit';
import type { AuthEvents } from './adapters/events';
import {
  hashSecret,
  randomSecret,
  randomVerificationCode,
  sha256,
  verifySecret,
} from './adapters/secrets';
import type { SessionStore } from './adapters/sessions';
import type { UsersRepository } from './adapters/users';
import { authErrors } from './domain/errors';
import { claimsOf } from './domain/session';
import type { PendingVerification, User } from './domain/user';
import {
  acceptsToken,
  codeRefusal,
  mayResend,
  hasAttemptsLeft,
  verificationExpiry,
  type CodeChannel,
  type CodeRefusal,
} from './domain/verification';
import type { AccountSessions } from './account-sessions';
import type { AccountsDependencies } from './account-types';

/** A fresh verification: what is stored, and the secrets that only the e-mail carries. */
export interface NewVerification {
  verification: PendingVerification;
  code: string;
  token: string;
}

/** A verification attempt that lost a race should look again, but not for ever. */
const MAX_CODE_ROUNDS = 3;

/** Verification for `Accounts`; a session is resolved through `AccountSessions`. */
export class EmailVerification {
  private readonly users: UsersRepository;
  private readonly sessions: SessionStore;
  private readonly events: AuthEvents;
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(
    private readonly deps: AccountsDependencies,
    private readonly accountSessions: AccountSessions,
  ) {
    this.users = deps.users;
    this.sessions = deps.sessions;
    this.events = deps.events;
    this.clock = deps.clock;
    this.logger = deps.logger;
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
      const signedIn = await this.accountSessions.resolveSessionOrNull(owner.sessionId);
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
    const signedIn = sessionId ? await this.accountSessions.resolveSessionOrNull(sessionId) : null;
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

  async newVerification(now: Date): Promise<NewVerification> {
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
