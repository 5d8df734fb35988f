import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';

/**
 * The client's address as express's `req.ip` gives it with `'trust proxy'` set to a hop count
 * (what the rate limits use), by express's own `proxy-addr`: the socket's peer, or, behind
 * `trustProxy` proxies, the entry of `X-Forwarded-For` that the outermost trusted proxy appended.
 * Entries further left are the client's own say and are never believed. For a raw upgrade
 * request, which express never sees.
 */
export function clientAddressOf(req: IncomingMessage, trustProxy: number): string {
  // Undefined once the socket is gone (no peer address), as express's req.ip is.
  const address = proxyaddr(req, (_address, hop) => hop < trustProxy) as string | undefined;
  return address ?? 'unknown';
}

/**
 * The key a per-address limit counts under: an IPv4 address (IPv4-mapped IPv6 included) as it
 * is, an IPv6 address by its /64, which is what one host or home network is given, so it cannot
 * rotate through its own addresses past the limit. Anything else (not an address) as it is.
 */
export function addressKey(address: string): string {
  const bare = address.replace(/%.*$/, '');
  // node:net's strict check first: ipaddr.js also takes IPv4 shorthands such as `127.1`.
  if (isIP(bare) === 0) return address;
  const parsed = ipaddr.process(bare);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${parsed.toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}
