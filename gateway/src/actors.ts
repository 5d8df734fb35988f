import { ActorSchema, create, type Actor } from '@underdog/proto';
import { appErrorFromRpc } from '@underdog/rpc';
import { notAuthenticated, type RequestOrigin } from './session';

/**
 * The caller as the services see it (`underdog.common.v1.Actor`): the signed-in user from the
 * session, or a visitor (empty user id and role), with the request's `X-Device-ID` either way.
 * The services enforce roles, verification and windows on it; the gateway only resolves it.
 */
export async function actorOf(origin: RequestOrigin): Promise<Actor> {
  const actor = await origin.session.actor();
  const resolved = create(ActorSchema, {
    userId: actor?.userId ?? '',
    role: actor?.role ?? '',
    isEmailVerified: actor?.isEmailVerified ?? false,
    deviceId: origin.deviceId,
    username: actor?.username ?? '',
  });
  clientAddresses.set(resolved, origin.ip);
  return resolved;
}

/**
 * The client address of the request each actor was resolved for. The address is not part of
 * the services' `Actor` (they have no use for it), but the audit log (admin-actions.ts) names
 * it; the actor object travels with every call, so it is the key.
 */
const clientAddresses = new WeakMap<object, string>();

/** The client address of the request `actor` came from (`actorOf`); '' when unknown. */
export function clientAddressOf(actor: object | undefined): string {
  return (actor && clientAddresses.get(actor)) ?? '';
}

/**
 * Awaits a call a service answers on behalf of an actor, turning its failure back into the
 * AppError it threw. A service refuses a visitor with its own reason; the edge answers every
 * visitor alike, with the 401 `UNAUTHENTICATED` that `GET /api/user` gives.
 */
export async function delegate<T>(pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (error) {
    const appError = appErrorFromRpc(error);
    if (appError.code === 'UNAUTHENTICATED') throw notAuthenticated();
    throw appError;
  }
}
