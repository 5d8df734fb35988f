import type { IncomingMessage } from 'node:http';
import { DEVICE_ID_MAX_LENGTH } from '@underdog/fair-play';
import { systemClock, type Clock } from '@underdog/kit';
import type { RequestOrigins } from '../request-origins';
import type { RequestOrigin } from '../session';
import { sessionHash, type SessionActors } from '../session-actors';
import type { RealtimeLimits } from './ports';

/**
 * The session of one WebSocket (`/ws` or graphql-ws), from its upgrade's cookie: resolved once
 * for the socket, not once per action, and read again now and then so a logout or a
 * verification shows.
 *
 * A verified player's is reused longer (`verifiedSessionTtlMs`), then refreshed in the
 * background while the action goes on with it: thousands of sockets opened minutes before a
 * game would otherwise put one session lookup on every vote of a round, or beside it
 * (docs/benchmarks.md). A visitor's or an unverified player's (who may have verified meanwhile)
 * is read again before the action once `sessionTtlMs` old, and any past `sessionMaxAgeMs` too.
 * A session revoked since it was read (`SessionActors.revoked`: a logout through any gateway,
 * a password change, a role change, announced on `session.revocations`), or past the expiry its
 * last lookup gave, is read again before the action, whatever its age: the socket plays on as a
 * visitor, or with the new role.
 */
export class SocketSession {
  private origin: RequestOrigin;
  private originAt: number;
  private refreshing = false;
  /** The device id of graphql-ws `connection_init` (`adoptDeviceId`), '' until then. */
  private initDeviceId = '';
  /** The cookie's session id and its hash (`hashOf`). */
  private hashed: { sessionId: string; hash: string } | undefined;

  constructor(
    private readonly request: IncomingMessage,
    private readonly origins: RequestOrigins,
    private readonly limits: RealtimeLimits,
    private readonly actors?: SessionActors,
    /** The gateway's clock: the session's ages are measured by it. */
    private readonly clock: Clock = systemClock,
  ) {
    // The waiting room's lookup, when it made one (its age counts from before it was read).
    const admitted = origins.takeAdmitted(request);
    this.origin = admitted?.origin ?? origins.fromUpgrade(request);
    this.originAt = admitted?.readAt ?? this.now();
  }

  /**
   * The device id a graphql-ws client names in its `connection_init` payload (`deviceId`, or
   * `X-Device-ID` as over HTTP): the web app's way, so the id is in no URL (ingress logs keep
   * URLs). It counts unless the upgrade carried an `X-Device-ID` header, and over the URL's
   * `?deviceId=` (still accepted, docs/api-ws.md).
   */
  adoptDeviceId(payload: unknown): void {
    if (typeof payload !== 'object' || payload === null) return;
    const fields = payload as Record<string, unknown>;
    const named = fields.deviceId ?? fields['X-Device-ID'];
    if (typeof named !== 'string') return;
    this.initDeviceId = named.trim().slice(0, DEVICE_ID_MAX_LENGTH);
    this.withDevice(this.origin);
  }

  /**
   * Resolves the socket's actor now (at `connection_init`), so the first action finds it. A
   * lookup that failed (the auth service did not answer) is not kept: the first action asks
   * again.
   */
  async resolve(): Promise<void> {
    const origin = this.origin;
    try {
      await origin.session.actor();
    } catch {
      if (this.origin === origin) this.renew();
    }
  }

  /** The user id of `origin`'s session once it is known (`userId`). */
  private knownUser: { origin: RequestOrigin; userId: string | undefined } | undefined;

  /**
   * The signed-in user's id as the socket's session has it, without a fresh lookup: which
   * sockets a message meant for one player goes to (`Connection.userOf`). Undefined: a visitor.
   * Synchronous once known, so finding one player among 10,000 sockets costs no promise each.
   */
  userId(): string | undefined | Promise<string | undefined> {
    const origin = this.origin;
    if (this.knownUser?.origin === origin) return this.knownUser.userId;
    return origin.session.actor().then(
      (actor) => {
        const userId = actor?.userId || undefined;
        if (this.origin === origin) this.knownUser = { origin, userId };
        return userId;
      },
      // Not kept: the next message asks again.
      () => undefined,
    );
  }

  async currentOrigin(): Promise<RequestOrigin> {
    const sessionId = this.origin.session.cookieSessionId;
    if (sessionId && this.actors?.hashEndedSince(this.hashOf(sessionId), this.originAt)) {
      return this.renew();
    }
    const age = this.now() - this.originAt;
    if (age <= this.limits.sessionTtlMs) return this.origin;
    const actor = await this.origin.session.actor().catch(() => undefined);
    if (actor?.isEmailVerified && age <= this.limits.sessionMaxAgeMs) {
      if (age > this.limits.verifiedSessionTtlMs) this.refreshInBackground();
      return this.origin;
    }
    return this.renew();
  }

  /**
   * The socket's session id hashed as revocations name it, once per id: a SHA-256 per vote was
   * 192 ms of a 10,000-player round.
   */
  private hashOf(sessionId: string): string {
    if (this.hashed?.sessionId !== sessionId)
      this.hashed = { sessionId, hash: sessionHash(sessionId) };
    return this.hashed.hash;
  }

  /** `origin` with the device id of `connection_init`, when one came and no header did. */
  private withDevice(origin: RequestOrigin): RequestOrigin {
    if (this.initDeviceId && !this.request.headers['x-device-id']) {
      origin.deviceId = this.initDeviceId;
    }
    return origin;
  }

  private renew(): RequestOrigin {
    this.origin = this.withDevice(this.origins.fromUpgrade(this.request));
    this.originAt = this.now();
    return this.origin;
  }

  private now(): number {
    return this.clock.now().getTime();
  }

  private refreshInBackground(): void {
    if (this.refreshing) return;
    const fresh = this.withDevice(this.origins.fromUpgrade(this.request));
    // Its age counts from before the read: a revocation arriving while it is under way is newer
    // than what it read, so the next action reads the session once more.
    const readAt = this.now();
    this.refreshing = true;
    void fresh.session
      .actor()
      .then(
        () => {
          this.origin = fresh;
          this.originAt = readAt;
        },
        () => undefined, // the auth service did not answer: the next action tries again
      )
      .finally(() => {
        this.refreshing = false;
      });
  }
}

/** A socket's message budget: `messagesPerSecond` with a burst of `messageBurst`. */
export class MessageRate {
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly limits: RealtimeLimits,
    /** The gateway's clock: the budget refills by it. */
    private readonly clock: Clock = systemClock,
  ) {
    this.tokens = limits.messageBurst;
    this.refilledAt = clock.now().getTime();
  }

  /** False once the client sends faster than its rate (after the burst). */
  take(): boolean {
    const now = this.clock.now().getTime();
    this.tokens = Math.min(
      this.limits.messageBurst,
      this.tokens + ((now - this.refilledAt) / 1000) * this.limits.messagesPerSecond,
    );
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
