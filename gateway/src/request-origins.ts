import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import type { GatewayClients } from './clients';
import { RequestSession, SessionCookie, type RequestOrigin } from './session';

/** Builds the `RequestOrigin` of an HTTP request or a WebSocket upgrade, for either edge. */
export class RequestOrigins {
  constructor(
    private readonly auth: GatewayClients['auth'],
    readonly cookie: SessionCookie,
  ) {}

  /** An HTTP request: the session cookie can be set and cleared on its response. */
  fromHttp(req: Request, res: Response): RequestOrigin {
    return {
      // `req.ip` honours X-Forwarded-For only as far as express's 'trust proxy' allows.
      ip: req.ip ?? req.socket.remoteAddress ?? 'unknown',
      deviceId: deviceIdOf(req),
      session: new RequestSession(
        this.auth,
        this.cookie,
        this.cookie.read(req.headers.cookie),
        (header) => res.append('Set-Cookie', header),
      ),
    };
  }

  /**
   * A WebSocket connection's upgrade request. Nothing can set a cookie once the socket is open,
   * so clearing a stale one is left to the next HTTP request.
   */
  /** A session this process holds itself (the standalone demo's bots): no cookie to set. */
  fromSession(sessionId: string, deviceId: string): RequestOrigin {
    return {
      ip: '127.0.0.1',
      deviceId,
      session: new RequestSession(this.auth, this.cookie, sessionId, () => undefined),
    };
  }

  fromUpgrade(req: IncomingMessage): RequestOrigin {
    return {
      ip: req.socket.remoteAddress ?? 'unknown',
      // A browser cannot set headers on a WebSocket handshake: the device id may come as the
      // `deviceId` query parameter of the socket's URL instead.
      deviceId: deviceIdOf(req) || deviceIdParameterOf(req),
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

function deviceIdParameterOf(req: IncomingMessage): string {
  const value = new URL(req.url ?? '/', 'http://localhost').searchParams.get('deviceId');
  return value?.trim().slice(0, 200) ?? '';
}
