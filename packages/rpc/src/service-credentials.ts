import { createHmac, timingSafeEqual } from 'node:crypto';
import { Code, type Interceptor } from '@connectrpc/connect';
import type { Clock, Logger } from '@underdog/kit';
import { rpcError } from './errors';

/**
 * Service credentials (docs/adr/0013-service-credentials.md): in distributed mode every internal
 * call carries a short-lived token signed with the key every process shares
 * (`SERVICE_TOKEN_SECRET`), and every service refuses a call without a valid one. The token names
 * the caller, is bound to the one procedure it was made for and expires within a minute:
 *
 *   v1.<caller>.<expiry, unix seconds>.<base64url HMAC-SHA-256 of "v1.<caller>.<expiry>.<procedure>">
 *
 * In standalone mode calls never leave the process, and the in-process transport carries none.
 */
export const SERVICE_TOKEN_HEADER = 'underdog-service-token';

/** The reason (`underdog-error-reason`) of a refusal, so a caller's logs tell it from a player's 401. */
export const SERVICE_CREDENTIAL_REFUSED = 'SERVICE_CREDENTIAL_REFUSED';

/** The least length of `SERVICE_TOKEN_SECRET`: 32 characters, as the other keys. */
export const SERVICE_TOKEN_SECRET_MIN_LENGTH = 32;

/** How long a token made for a call stays valid: the call's flight, with room for clock skew. */
export const SERVICE_TOKEN_TTL_SECONDS = 60;

/** The furthest expiry a service accepts: a token made to last longer is refused. */
const MAX_TTL_SECONDS = 5 * 60;

const VERSION = 'v1';
const CALLER = /^[a-z][a-z0-9-]{0,39}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/** Who calls, and the key it signs with. */
export interface ServiceCaller {
  /** The calling component, e.g. `gateway`; lower-case letters, digits and dashes. */
  readonly name: string;
  /** `SERVICE_TOKEN_SECRET`, the same in every process of the deployment. */
  readonly secret: string;
  /** When tokens are made; default: the system clock. */
  readonly clock?: Clock;
}

/** The check every service makes, and where a refusal is logged. */
export interface ServiceCredentialCheck {
  readonly secret: string;
  readonly logger: Logger;
  /** When tokens are checked; default: the system clock. */
  readonly clock?: Clock;
}

export type RefusalReason = 'missing' | 'malformed' | 'expired' | 'too-long' | 'signature';

export type TokenCheck =
  | { readonly ok: true; readonly caller: string }
  | { readonly ok: false; readonly reason: RefusalReason; readonly caller?: string };

/** `/underdog.auth.v1.AuthService/SetRole`: what a token is bound to, the path of the call. */
export function procedureOf(service: { typeName: string }, method: { name: string }): string {
  return `/${service.typeName}/${method.name}`;
}

function signature(secret: string, caller: string, expiry: number, procedure: string): string {
  return createHmac('sha256', secret)
    .update(`${VERSION}.${caller}.${expiry}.${procedure}`)
    .digest('base64url');
}

/** A token for one call of `procedure` by `caller`, valid for `ttlSeconds` from `now`. */
export function signServiceToken(options: {
  secret: string;
  caller: string;
  procedure: string;
  now: Date;
  ttlSeconds?: number;
}): string {
  const { secret, caller, procedure, now } = options;
  if (!CALLER.test(caller)) throw new Error(`not a caller name: ${JSON.stringify(caller)}`);
  const expiry =
    Math.floor(now.getTime() / 1000) + (options.ttlSeconds ?? SERVICE_TOKEN_TTL_SECONDS);
  return `${VERSION}.${caller}.${expiry}.${signature(secret, caller, expiry, procedure)}`;
}

/** Whether `token` was signed with `secret` for `procedure` and is still valid at `now`. */
export function verifyServiceToken(
  token: string | null | undefined,
  options: { secret: string; procedure: string; now: Date },
): TokenCheck {
  if (!token) return { ok: false, reason: 'missing' };
  const parts = token.split('.');
  const [version, caller, expiryText, signed] = parts;
  if (
    parts.length !== 4 ||
    version !== VERSION ||
    caller === undefined ||
    !CALLER.test(caller) ||
    expiryText === undefined ||
    !/^\d{1,12}$/.test(expiryText) ||
    signed === undefined ||
    !SIGNATURE.test(signed)
  ) {
    return { ok: false, reason: 'malformed' };
  }
  const expiry = Number(expiryText);
  const expected = Buffer.from(signature(options.secret, caller, expiry, options.procedure));
  // Checked before the expiry, so a forged token is never reported as merely expired.
  if (!timingSafeEqual(expected, Buffer.from(signed))) {
    return { ok: false, reason: 'signature', caller };
  }
  const nowSeconds = options.now.getTime() / 1000;
  if (expiry < nowSeconds) return { ok: false, reason: 'expired', caller };
  if (expiry > nowSeconds + MAX_TTL_SECONDS) return { ok: false, reason: 'too-long', caller };
  return { ok: true, caller };
}

/** Client side: each call gets a fresh token for its procedure in `underdog-service-token`. */
export function serviceCredential(caller: ServiceCaller): Interceptor {
  // Fails at wiring, not at the first call, for a name no service would accept.
  if (!CALLER.test(caller.name))
    throw new Error(`not a caller name: ${JSON.stringify(caller.name)}`);
  if (caller.secret.length < SERVICE_TOKEN_SECRET_MIN_LENGTH) {
    throw new Error(`SERVICE_TOKEN_SECRET: at least ${SERVICE_TOKEN_SECRET_MIN_LENGTH} characters`);
  }
  return (next) => (request) => {
    request.header.set(
      SERVICE_TOKEN_HEADER,
      signServiceToken({
        secret: caller.secret,
        caller: caller.name,
        procedure: procedureOf(request.service, request.method),
        now: caller.clock?.now() ?? new Date(),
      }),
    );
    return next(request);
  };
}

/**
 * Server side: a call without a valid token for its procedure is refused with `Unauthenticated`
 * before any handler runs, and logged (caller as claimed, procedure, reason — never the token).
 * On success the handler runs as before; the caller's name is in the log line of a refusal only.
 */
export function requireServiceCredential(check: ServiceCredentialCheck): Interceptor {
  if (check.secret.length < SERVICE_TOKEN_SECRET_MIN_LENGTH) {
    throw new Error(`SERVICE_TOKEN_SECRET: at least ${SERVICE_TOKEN_SECRET_MIN_LENGTH} characters`);
  }
  return (next) => (request) => {
    const procedure = procedureOf(request.service, request.method);
    const result = verifyServiceToken(request.header.get(SERVICE_TOKEN_HEADER), {
      secret: check.secret,
      procedure,
      now: check.clock?.now() ?? new Date(),
    });
    if (!result.ok) {
      check.logger.warn(
        {
          procedure,
          reason: result.reason,
          ...(result.caller === undefined ? {} : { claimedCaller: result.caller }),
        },
        'internal call refused: no valid service credential',
      );
      throw rpcError(Code.Unauthenticated, 'Service credential missing or invalid', {
        reason: SERVICE_CREDENTIAL_REFUSED,
      });
    }
    return next(request);
  };
}
