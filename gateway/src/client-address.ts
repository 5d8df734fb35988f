import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/**
 * The client's address as express's `req.ip` gives it with `'trust proxy'` set to a hop count
 * (what the rate limits use): the socket's peer, or, behind `trustProxy` proxies, the entry of
 * `X-Forwarded-For` that the outermost trusted proxy appended. Entries further left are the
 * client's own say and are never believed. For a raw upgrade request, which express never sees.
 */
export function clientAddressOf(req: IncomingMessage, trustProxy: number): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  if (trustProxy === 0) return peer;
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .reverse();
  const hops = [peer, ...forwarded];
  return hops[Math.min(trustProxy, hops.length - 1)] ?? peer;
}

/**
 * The key a per-address limit counts under: an IPv4 address (IPv4-mapped IPv6 included) as it
 * is, an IPv6 address by its /64, which is what one host or home network is given, so it cannot
 * rotate through its own addresses past the limit. Anything else (not an address) as it is.
 */
export function addressKey(address: string): string {
  const bare = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  if (mapped?.[1]) return mapped[1];
  if (isIP(bare) !== 6) return address;
  const [head = '', tail] = bare.split('::');
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':'));
  const width = (groups: string[]) =>
    groups.reduce((sum, group) => sum + (group.includes('.') ? 2 : 1), 0);
  const headGroups = groupsOf(head);
  const tailGroups = tail === undefined ? [] : groupsOf(tail);
  const zeros = Array<string>(Math.max(0, 8 - width(headGroups) - width(tailGroups))).fill('0');
  const prefix = [...headGroups, ...zeros, ...tailGroups]
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16));
  return `${prefix.join(':')}::/64`;
}
