// Over 300 lines: one class, the account calls, sharing its login throttle and session guard.
import { AppError } from '@underdog/kit';
import { timestampDate, type VerifyEmailRequest } from '@underdog/proto';
import { appErrorFromRpc } from '@underdog/rpc';
import { addressKey } from './client-address';
import type { GatewayClients } from './clients';
import type { RateLimits } from './config';
import {
  STRANGER_NETWORKS_PER_WINDOW,
  accountId,
  loginSources,
  networkSource,
  type KnownLoginSources,
} from './known-login-sources';
import type { FairPlaySignals } from './fair-play-signals';
import type { RateLimitBucket, RateLimiter } from './rate-limiter';
import { notAuthenticated, type RequestOrigin, type SignedIn } from './session';
import { toUserView, type UserView } from './users';

export interface RegisterInput {
  email: string;
  displayName: string;
  password: string;
}

export interface LoginInput {
  email: string;
  password: string;
}

/** The 6-digit code (for the session's user, else for `email`), or the e-mailed link's token. */
export type VerifyEmailInput = { code: string; email?: string | undefined } | { token: string };

export interface ChangePasswordInput {
  currentPassword: string;
  newPassword: string;
}

export interface MailboxMessageView {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** ISO 8601. */
  sentAt: string | null;
}

/**
 * The account operations behind both edges: REST handlers and GraphQL resolvers translate their
 * input, call one of these and render the result. This is where the session cookie is set and
 * cleared and where the edge's rate limits apply; the rules about users, passwords and codes
 * live in the auth service.
 */
export class Accounts {
  constructor(
    private readonly clients: GatewayClients,
    private readonly limiter: RateLimiter,
    private readonly limits: RateLimits,
    private readonly knownSources: KnownLoginSources,
    /** Fair-play signals after a register or login succeeded; none in some tests. */
    private readonly signals?: FairPlaySignals,
  ) {}

  /** The signed-in user, or null for a visitor. */
  async me(origin: RequestOrigin): Promise<UserView | null> {
    const signedIn = await origin.session.current();
    return signedIn ? toUserView(signedIn.user) : null;
  }

  /** The signed-in user; 401 for a visitor. */
  async currentUser(origin: RequestOrigin): Promise<UserView> {
    return toUserView((await origin.session.require()).user);
  }

  async register(
    origin: RequestOrigin,
    input: RegisterInput,
  ): Promise<{ message: string; user: UserView }> {
    await this.limiter.take([this.ipBucket('register', origin, this.limits.registrationsPerIp)]);
    const response = await call(
      this.clients.auth.register({ ...input, deviceId: origin.deviceId }),
    );
    const user = await this.startSession(origin, response);
    await this.knownSources.remember(accountId(input.email), loginSources(origin));
    this.signals?.registered(origin, user.id);
    return { message: response.message, user };
  }

  /**
   * Failed logins are counted per account and per client address; a slot is taken before the
   * password is checked and given back unless the credentials were wrong, so parallel guesses
   * cannot overrun the limit, and once it is reached the answer is the same 429 whether or not
   * the password was right. The account's count is kept per source: a device or address it has
   * signed in from has a budget of its own, so guesses by someone who knows only the e-mail never
   * lock the owner out there. Every other source is counted by its network (IPv4 /24, IPv6 /48),
   * each with a budget, under a ceiling of `STRANGER_NETWORKS_PER_WINDOW` budgets for them all:
   * a new device on a new network is locked out only by guesses from its own network or from
   * that many networks at once (docs/security.md).
   */
  async login(origin: RequestOrigin, input: LoginInput): Promise<UserView> {
    const response = await this.throttleLoginFailures(origin, input.email, () =>
      this.clients.auth.login({ ...input, deviceId: origin.deviceId }),
    );
    const user = await this.startSession(origin, response);
    this.signals?.loggedIn(origin, user.id);
    return user;
  }

  async logout(origin: RequestOrigin): Promise<void> {
    const sessionId = origin.session.cookieSessionId;
    if (sessionId) await this.endSession(sessionId);
    origin.session.ended();
  }

  async updateProfile(origin: RequestOrigin, input: { displayName: string }): Promise<UserView> {
    const { user } = await this.withSession(origin, (sessionId) =>
      this.clients.auth.updateProfile({ sessionId, displayName: input.displayName }),
    );
    return toUserView(required(user, 'user'));
  }

  /**
   * The verified user for the caller's own session (and the link's holder); null when a code
   * was sent with an e-mail and no session of that account: a visitor learns nothing of it.
   */
  async verifyEmail(origin: RequestOrigin, input: VerifyEmailInput): Promise<UserView | null> {
    // A stale cookie is dropped here, so a code sent with an e-mail still reaches that account.
    const signedIn = await origin.session.current();
    const account = signedIn?.user.email ?? ('email' in input ? input.email : undefined);
    // The account's own session counts apart: guesses by e-mail cannot use up its budget.
    const accountRule = this.limits.verificationsPerAccount;
    await this.limiter.take([
      this.ipBucket('verify', origin, this.limits.verificationsPerIp),
      ...(account
        ? [accountBucket(signedIn ? 'verify-session' : 'verify', account, accountRule)]
        : []),
    ]);
    const proof: VerifyEmailRequest['proof'] =
      'token' in input
        ? { case: 'token', value: input.token }
        : { case: 'code', value: input.code };
    const { user } = await this.guardSession(
      origin,
      this.clients.auth.verifyEmail({
        proof,
        sessionId: signedIn?.sessionId ?? '',
        email: 'email' in input ? (input.email ?? '') : '',
      }),
    );
    if (!user) return null;
    if (signedIn && signedIn.user.id === user.id) origin.session.refreshed(user);
    return toUserView(user);
  }

  async resendVerification(origin: RequestOrigin, input: { email: string }): Promise<string> {
    await this.limiter.take([this.ipBucket('resend', origin, this.limits.resendsPerIp)]);
    const { message } = await call(this.clients.auth.resendVerification({ email: input.email }));
    return message;
  }

  /**
   * Changes the password and moves this client to the rotated session (the auth service ends
   * every other one). Wrong current passwords count as login failures of the account, so a
   * borrowed session cannot be used to guess the password.
   */
  async changePassword(origin: RequestOrigin, input: ChangePasswordInput): Promise<string> {
    const signedIn = await origin.session.require();
    const { session } = await this.guardSession(
      origin,
      this.throttleLoginFailures(origin, signedIn.user.email, () =>
        this.clients.auth.changePassword({ sessionId: signedIn.sessionId, ...input }),
      ),
    );
    origin.session.started(required(session, 'session').id, signedIn.user);
    return 'Password changed';
  }

  /** Every e-mail the notification service captured, newest first (outside production only). */
  async mailbox(): Promise<MailboxMessageView[]> {
    const { messages } = await call(this.clients.notification.listMailbox({}));
    return messages.map((message) => ({
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      sentAt: message.sentAt ? timestampDate(message.sentAt).toISOString() : null,
    }));
  }

  private async throttleLoginFailures<T>(
    origin: RequestOrigin,
    email: string,
    attempt: () => Promise<T>,
  ): Promise<T> {
    const account = accountId(email);
    const sources = loginSources(origin);
    const known = await this.knownSources.knownOf(account, sources);
    const perAccount = this.limits.loginFailuresPerAccount;
    const accountBuckets = known
      ? [{ key: `login:account:${account}:${known}`, rule: perAccount }]
      : [
          { key: `login:account:${account}:${networkSource(origin)}`, rule: perAccount },
          {
            key: `login:account:${account}`,
            rule: { ...perAccount, limit: perAccount.limit * STRANGER_NETWORKS_PER_WINDOW },
          },
        ];
    const slots = await this.limiter.take([
      ...accountBuckets,
      this.ipBucket('login', origin, this.limits.loginFailuresPerIp),
    ]);
    try {
      const result = await call(attempt());
      await slots.release();
      await this.knownSources.remember(account, sources);
      return result;
    } catch (error) {
      if (!isCredentialFailure(error)) await slots.release();
      throw error;
    }
  }

  /**
   * Moves the client to a new session. The session it came with, if any, is ended first: after
   * a login the old cookie is worth nothing, whoever holds a copy of it.
   */
  private async startSession(
    origin: RequestOrigin,
    response: { user?: SignedIn['user'] | undefined; session?: { id: string } | undefined },
  ): Promise<UserView> {
    const user = required(response.user, 'user');
    const session = required(response.session, 'session');
    const previous = origin.session.cookieSessionId;
    if (previous && previous !== session.id) await this.endSession(previous);
    origin.session.started(session.id, user);
    return toUserView(user);
  }

  /** Logs a session out; one that is already gone is fine. */
  private async endSession(sessionId: string): Promise<void> {
    try {
      await call(this.clients.auth.logout({ sessionId }));
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'UNAUTHENTICATED')) throw error;
    }
  }

  private async withSession<T>(
    origin: RequestOrigin,
    run: (sessionId: string) => Promise<T>,
  ): Promise<T> {
    const { sessionId } = await origin.session.require();
    return this.guardSession(origin, run(sessionId));
  }

  /** A call made with the caller's session: if the auth service has forgotten it, 401. */
  private async guardSession<T>(origin: RequestOrigin, pending: Promise<T>): Promise<T> {
    try {
      return await call(pending);
    } catch (error) {
      if (error instanceof AppError && error.reason === 'NO_SESSION') {
        origin.session.ended();
        throw notAuthenticated();
      }
      throw error;
    }
  }

  private ipBucket(
    action: string,
    origin: RequestOrigin,
    rule: RateLimitBucket['rule'],
  ): RateLimitBucket {
    // An IPv6 client by its /64, as the WebSocket cap counts it: its own addresses are one source.
    return { key: `${action}:ip:${addressKey(origin.ip)}`, rule };
  }
}

/** Awaits an RPC and turns its failure back into the AppError the service threw. */
async function call<T>(pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (error) {
    throw appErrorFromRpc(error);
  }
}

/**
 * A wrong password (login's INVALID_CREDENTIALS, change-password's WRONG_PASSWORD), as opposed
 * to a malformed request, a lost session or a service outage, which give their slot back.
 */
function isCredentialFailure(error: unknown): boolean {
  return (
    error instanceof AppError &&
    (error.reason === 'INVALID_CREDENTIALS' || error.reason === 'WRONG_PASSWORD')
  );
}

/** Per-account counters are keyed by the normalised e-mail, hashed to keep addresses out of Redis. */
function accountBucket(
  action: string,
  email: string,
  rule: RateLimitBucket['rule'],
): RateLimitBucket {
  return { key: `${action}:account:${accountId(email)}`, rule };
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the auth service answered without a ${what}`);
  return value;
}
