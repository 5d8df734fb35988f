import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Registry } from '@underdog/kit';
import ipaddr from 'ipaddr.js';
import { Counter } from 'prom-client';
import type { PublicOrigins } from '../request-origins';

/**
 * Who may open a socket, before anything is accepted: a page of this app (Origin), a client
 * address below its cap and a network (IPv4 /24, IPv6 /48) below its own. The capacity, which
 * closes rather than refuses, is `capacity.ts`.
 */

/**
 * Whether the upgrade comes from a page of this app: its Origin, scheme, host and port, is one
 * of the public origins (see `PublicOrigins`), so a page served over plain http, or from another
 * port of the same host, cannot open a socket that carries the player's cookie. A browser always
 * sends Origin on a WebSocket handshake, and the same-origin policy does not apply to
 * WebSockets: another site's page must not open a socket carrying the player's session cookie.
 */
export function isSameOrigin(req: IncomingMessage, publicOrigins: PublicOrigins): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true; // not a browser: it has no ambient cookies to abuse
  return publicOrigins.accepts(origin, req);
}

/**
 * The network a per-prefix cap counts under: an IPv4 address (IPv4-mapped IPv6 included) by its
 * /24, an IPv6 address by its /48 (a site's usual allocation: the per-address cap already counts
 * one by its /64, and a /58 is 64 of those). Anything else (not an address) as it is.
 */
export function prefixKey(address: string): string {
  const bare = address.replace(/%.*$/, '');
  // node:net's strict check first: ipaddr.js also takes IPv4 shorthands such as `127.1`.
  if (isIP(bare) === 0) return address;
  const parsed = ipaddr.process(bare);
  if (parsed.kind() === 'ipv4') {
    return `${parsed.toString().split('.').slice(0, 3).join('.')}.0/24`;
  }
  return `${parsed.toNormalizedString().split(':').slice(0, 3).join(':')}::/48`;
}

/**
 * Open sockets per client address (or per network, with `prefixKey`), for the cap. An address's entry lives while it has sockets,
 * so the map is as big as the open connections at most.
 */
export class OpenSocketsPerAddress {
  private readonly counts = new Map<string, number>();
  /** Addresses refused since they were last below the cap: logged once per episode. */
  private readonly refused = new Set<string>();

  constructor(private readonly limit: number) {}

  acquire(address: string): boolean {
    const count = this.counts.get(address) ?? 0;
    if (this.limit > 0 && count >= this.limit) return false;
    this.counts.set(address, count + 1);
    return true;
  }

  release(address: string): void {
    const count = (this.counts.get(address) ?? 1) - 1;
    if (count <= 0) this.counts.delete(address);
    else this.counts.set(address, count);
    this.refused.delete(address);
  }

  firstRefusal(address: string): boolean {
    if (this.refused.has(address)) return false;
    this.refused.add(address);
    return true;
  }
}

/** `underdog_websocket_refused_total`, registered once per registry. */
export function refusedCounter(registry: Registry): Counter<'reason'> {
  const name = 'underdog_websocket_refused_total';
  const existing = registry.getSingleMetric(name) as Counter<'reason'> | undefined;
  if (existing) return existing;
  const counter = new Counter({
    name,
    help: "WebSocket upgrades refused, by reason (capacity: closed 1013, the process full; visitors: closed 1013, the visitors' share full; address: 429, the per-address cap; prefix: 429, the per-network cap)",
    labelNames: ['reason'],
    registers: [registry],
  });
  // Both series exist from the start, so a dashboard's rate() sees the first refusal.
  for (const reason of ['capacity', 'visitors', 'address', 'prefix']) counter.inc({ reason }, 0);
  return counter;
}

/** `underdog_websocket_evicted_total`: visitors' sockets closed 1013 to make room for players. */
export function evictedCounter(registry: Registry): Counter {
  const name = 'underdog_websocket_evicted_total';
  const existing = registry.getSingleMetric(name) as Counter | undefined;
  if (existing) return existing;
  return new Counter({
    name,
    help: "Visitors' WebSockets closed 1013 (Server full) to make room for a signed-in player",
    registers: [registry],
  });
}
