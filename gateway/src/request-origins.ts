import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import { clientAddressOf } from './client-address';
import type { GatewayClients } from './clients';
import { RequestSession, SessionCookie, type RequestOrigin } from './session';

/** An upgrade's origin read at admission, and when its session lookup began. */
export interface AdmittedOrigin {
  origin: RequestOrigin;
  readAt: number;
}

/** Builds the `RequestOrigin` of an HTTP request or a WebSocket upgrade, for either edge. */
export class RequestOrigins {
  /**
   * The origin each upgrade was admitted with (`fromAdmission`) and when its session was read,
   * until its socket takes it (`takeAdmitted`): the waiting room's lookup is the socket's first.
   */
  private readonly admitted = new WeakMap<IncomingMessage, AdmittedOrigin>();

  constructor(
    private readonly auth: GatewayClients['auth'],
    readonly cookie: SessionCookie,
    /**
     * Proxies in front whose `X-Forwarded-For` is believed (TRUST_PROXY): a socket's client
     * address follows the rule express's `'trust proxy'` gives an HTTP request's `req.ip`.
     */
    private readonly trustProxy = 0,
  ) {}

  /** An HTTP request: the session cookie can be set and cleared on its response. */
  fromHttp(req: Request, res: Response): RequestOrigin {
    return {
      // `req.ip` honours X-Forwarded-For only as far as express's 'trust proxy' allows.
      ip: req.ip ?? req.socket.remoteAddress ?? 'unknown',
      deviceId: deviceIdOf(req),
      ...userAgentOf(req),
      session: new RequestSession(
        this.auth,
        this.cookie,
        this.cookie.read(req.headers.cookie),
        (header) => res.append('Set-Cookie', header),
      ),
    };
  }

  /** A session this process holds itself (the standalone demo's bots): no cookie to set. */
  fromSession(sessionId: string, deviceId: string): RequestOrigin {
    return {
      ip: '127.0.0.1',
      deviceId,
      session: new RequestSession(this.auth, this.cookie, sessionId, () => undefined),
    };
  }

  /**
   * A WebSocket connection's upgrade request. Nothing can set a cookie once the socket is open,
   * so clearing a stale one is left to the next HTTP request. The client address is the one
   * HTTP would see (`clientAddressOf`, the same trusted-proxy rule as `req.ip`), so fair-play
   * signals, limits and logs of a socket do not carry the proxy's address.
   */
  fromUpgrade(req: IncomingMessage): RequestOrigin {
    return this.originOfUpgrade(req);
  }

  /**
   * An upgrade's origin as the waiting room reads it before the socket opens (is it a
   * player's?), its session read from `readAt` (epoch ms, the gateway's clock): the socket then
   * starts from this one (`takeAdmitted`), its lookup already made, and a revocation since
   * `readAt` still shows on it.
   */
  fromAdmission(req: IncomingMessage, readAt: number): RequestOrigin {
    const origin = this.originOfUpgrade(req);
    this.admitted.set(req, { origin, readAt });
    return origin;
  }

  /** The origin the upgrade was admitted with, once (its socket's later reads are fresh). */
  takeAdmitted(req: IncomingMessage): AdmittedOrigin | undefined {
    const admitted = this.admitted.get(req);
    this.admitted.delete(req);
    return admitted;
  }

  private originOfUpgrade(req: IncomingMessage): RequestOrigin {
    return {
      ip: clientAddressOf(req, this.trustProxy),
      // A browser cannot set headers on a WebSocket handshake: the device id may come as the
      // `deviceId` query parameter of the socket's URL instead.
      deviceId: deviceIdOf(req) || deviceIdParameterOf(req),
      ...userAgentOf(req),
      session: new RequestSession(
        this.auth,
        this.cookie,
        this.cookie.read(req.headers.cookie),
        () => undefined,
      ),
    };
  }
}

function deviceIdOf(req: IncomingMessage): string {
  const header = req.headers['x-device-id'];
  return (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
}

function userAgentOf(req: IncomingMessage): { userAgent?: string } {
  const value = req.headers['user-agent'];
  return value ? { userAgent: value.slice(0, 1024) } : {};
}

function deviceIdParameterOf(req: IncomingMessage): string {
  const value = new URL(req.url ?? '/', 'http://localhost').searchParams.get('deviceId');
  return value?.trim().slice(0, 200) ?? '';
}

/**
 * The origins (scheme, host and port) the web app is served from: a browser page of one of them
 * may open a WebSocket with the player's cookie, and the CSP lets the app connect to them.
 *
 * Configured (`PUBLIC_ORIGINS`, the distributed deployment's public URL), an Origin must be one
 * of them exactly. Unconfigured (standalone, tests: whatever port it listens on), it must be the
 * request's own origin: the Host it was sent to, with the scheme this gateway is served over
 * (https when `COOKIE_SECURE` says so or the connection is TLS, http otherwise).
 */
export class PublicOrigins {
  private readonly configured: ReadonlySet<string>;

  constructor(
    configured: readonly string[],
    private readonly secure: boolean,
  ) {
    this.configured = new Set(configured.map((origin) => new URL(origin).origin));
  }

  /** Whether a browser page whose `Origin` header is `origin` belongs to this app. */
  accepts(origin: string, req: IncomingMessage): boolean {
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      return false; // "null" (an opaque origin) and garbage
    }
    if (parsed.origin !== origin) return false; // browsers send it serialised; nothing else is
    if (this.configured.size > 0) return this.configured.has(parsed.origin);
    const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
    const scheme = this.secure || encrypted ? 'https:' : 'http:';
    return parsed.protocol === scheme && parsed.host === (req.headers.host ?? '').toLowerCase();
  }

  /**
   * The WebSocket sources for `connect-src`: `wss:`/`ws:` of each configured origin (CSP Level 3
   * lets `'self'` match them, older browsers need them spelled out). Never the request's Host.
   */
  webSocketSources(): string[] {
    return [...this.configured].map((origin) => origin.replace(/^http/, 'ws'));
  }
}
