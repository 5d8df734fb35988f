import { adsErrors } from './errors';

/** Who asks, as the gateway resolved it from the session; undefined is a visitor. */
export interface Actor {
  userId: string;
  role: string;
}

/** Ad management is for admins only (server rules, "Identity and access"). */
export function requireAdmin(actor: Actor | undefined): void {
  if (!actor) throw adsErrors.notAuthenticated();
  if (actor.role !== 'admin') throw adsErrors.adminOnly();
}
