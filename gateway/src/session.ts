import { AppError } from '@underdog/kit';
import { ActorSchema, create, type Actor, type User } from '@underdog/proto';
import { appErrorFromRpc } from '@underdog/rpc';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { GatewayClients } from './clients';
import { roleName } from './users';

/** Sessions last at most 30 days (server rules); the auth service also ends idle ones. */
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

/**
 * The session cookie: `underdog_session`, or `__Host-underdog_session` with Secure behind HTTPS
 * (the prefix makes browsers refuse it without Secure, with a Domain, or off Path=/).
 * HttpOnly, SameSite=Lax, Path=/, Max-Age 30 days.
 */
export class SessionCookie {
  readonly name: string;

  constructor(private readonly secure: boolean) {
    this.name = secure ? '__Host-underdog_session' : 'underdog_session';
  }

  /** The session id a request carries, if any. */
  read(cookieHeader: string | undefined): string | undefined {
    if (!cookieHeader) return undefined;
    return parseCookie(cookieHeader)[this.name] || undefined;
  }

  /** A Set-Cookie header value holding `sessionId`. */
  issue(sessionId: string): string {
    return stringifySetCookie(this.name, sessionId, {
      ...this.attributes(),
      maxAge: SESSION_MAX_AGE_SECONDS,
    });
  }

  /** A Set-Cookie header value that makes the browser drop the cookie. */
  clear(): string {
    return stringifySetCookie(this.name, '', {
      ...this.attributes(),
      maxAge: 0,
      expires: new Date(0),
    });
  }

  private attributes() {
    return { httpOnly: true, sameSite: 'lax', path: '/', secure: this.secure } as const;
  }
}

/** Where a response's Set-Cookie headers go: the express response, or nowhere on a WebSocket. */
export type SetCookie = (header: string) => void;

export interface SignedIn {
  sessionId: string;
  user: User;
}

export function notAuthenticated(): AppError {
  return new AppError('UNAUTHENTICATED', 'Not authenticated');
}

/**
 * The session of one request: resolved through AuthService.GetSession at most once, and only
 * when something asks. A session the auth service no longer knows clears the cookie and the
 * request goes on as a visitor's.
 */
export class RequestSession {
  private resolved: Promise<SignedIn | undefined> | undefined;
  private resolvedActor: Promise<Actor | undefined> | undefined;

  constructor(
    private readonly auth: GatewayClients['auth'],
    private readonly cookie: SessionCookie,
    /** The session id the request came with. */
    readonly cookieSessionId: string | undefined,
    private readonly setCookie: SetCookie,
  ) {}

  current(): Promise<SignedIn | undefined> {
    this.resolved ??= this.lookUp();
    return this.resolved;
  }

  /**
   * The session's user as an actor (device id empty: the request's is the caller's), or
   * undefined for a visitor. Through AuthService.GetSessionActor, which answers from the session
   * record without reading the user, unless the whole user is already resolved.
   */
  actor(): Promise<Actor | undefined> {
    this.resolvedActor ??= this.resolved
      ? this.resolved.then((signedIn) => signedIn && actorOfUser(signedIn.user))
      : this.lookUpActor();
    return this.resolvedActor;
  }

  async require(): Promise<SignedIn> {
    const signedIn = await this.current();
    if (!signedIn) throw notAuthenticated();
    return signedIn;
  }

  /** The actor of a signed-in caller; a visitor gets 401 `UNAUTHENTICATED`. */
  async requireActor(): Promise<Actor> {
    const actor = await this.actor();
    if (!actor) throw notAuthenticated();
    return actor;
  }

  /** A new session for this client: sets the cookie. */
  started(sessionId: string, user: User): void {
    this.setCookie(this.cookie.issue(sessionId));
    this.resolved = Promise.resolve({ sessionId, user });
    this.resolvedActor = undefined;
  }

  /** The same session with fresher user data (e.g. just verified). */
  refreshed(user: User): void {
    this.resolved = this.resolved?.then((signedIn) => signedIn && { ...signedIn, user });
    this.resolvedActor = undefined;
  }

  /** The session is over (logout, or the auth service forgot it): clears the cookie. */
  ended(): void {
    this.setCookie(this.cookie.clear());
    this.resolved = Promise.resolve(undefined);
    this.resolvedActor = undefined;
  }

  private async lookUp(): Promise<SignedIn | undefined> {
    const sessionId = this.cookieSessionId;
    if (!sessionId) return undefined;
    try {
      const { user } = await this.auth.getSession({ sessionId });
      if (user) return { sessionId, user };
    } catch (error) {
      const appError = appErrorFromRpc(error);
      if (appError.code !== 'UNAUTHENTICATED') throw appError;
    }
    this.ended();
    return undefined;
  }

  private async lookUpActor(): Promise<Actor | undefined> {
    const sessionId = this.cookieSessionId;
    if (!sessionId) return undefined;
    try {
      const { actor } = await this.auth.getSessionActor({ sessionId });
      if (actor) return actor;
    } catch (error) {
      const appError = appErrorFromRpc(error);
      if (appError.code !== 'UNAUTHENTICATED') throw appError;
    }
    this.ended();
    return undefined;
  }
}

function actorOfUser(user: User): Actor {
  return create(ActorSchema, {
    userId: user.id,
    role: roleName(user.role),
    isEmailVerified: user.isEmailVerified,
    username: user.username,
  });
}

/**
 * Where a request comes from — its address, device and session — as every edge (REST, GraphQL,
 * the sockets) hands it to the shared logic. Not an `Actor`: the services' `Actor` (who makes
 * the request) is resolved from its session by `actorOf` (actors.ts).
 */
export interface RequestOrigin {
  /** The client address (X-Forwarded-For is used only with TRUST_PROXY). */
  ip: string;
  /** The X-Device-ID header, '' when absent. */
  deviceId: string;
  /** The User-Agent header; absent when not sent (fair-play signals keep only its keyed hash). */
  userAgent?: string;
  session: RequestSession;
}
