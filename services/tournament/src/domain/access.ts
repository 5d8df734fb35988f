import { tournamentErrors } from './errors';

/**
 * Who calls, as the gateway resolved it from the session (proto `Actor`). A visitor has no
 * user id. The device id is the request's `X-Device-ID`, absent when the client sent none.
 */
export interface Caller {
  readonly userId: string | undefined;
  readonly role: string;
  readonly isEmailVerified: boolean;
  readonly deviceId: string | undefined;
  /** The signed-in user's username ('' for a visitor). */
  readonly username: string;
}

export const ADMIN_ROLE = 'admin';

/** Tournament management: admins only (verification is not required of them). */
export function requireAdmin(caller: Caller): void {
  if (caller.userId === undefined) throw tournamentErrors.notAuthenticated();
  if (caller.role !== ADMIN_ROLE) throw tournamentErrors.adminOnly();
}

/** Any signed-in user, verified or not; returns their id. */
export function requireUser(caller: Caller): string {
  if (caller.userId === undefined) throw tournamentErrors.notAuthenticated();
  return caller.userId;
}

/** Taking part (offline choices, later joining and voting): verified users only. */
export function requireVerifiedUser(caller: Caller): string {
  const userId = requireUser(caller);
  if (!caller.isEmailVerified) throw tournamentErrors.emailNotVerified();
  return userId;
}
