import { createHmac } from 'node:crypto';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * What is recorded about a player as they register, log in, join a tournament and vote. Raw
 * client addresses, user agents and device ids never reach a signal: the edge turns them into
 * keyed hashes (`addressPrefixHash`, `userAgentHash`, `deviceIdHash`) with the server secret
 * before anything is stored, so a stored signal links two accounts on one network or one device
 * without saying which it was.
 */
export type SignalKind = 'registered' | 'loggedIn' | 'joined' | 'voted';

interface SignalBase {
  userId: string;
  /** When it happened, ms since the epoch (server clock). */
  at: number;
  /** `deviceIdHash` of the client's `X-Device-ID`, when it sent one. */
  deviceId?: string;
  /** `addressPrefixHash` of the client address (its /24 or /64), when known. */
  addressPrefix?: string;
  /** `userAgentHash` of the client's `User-Agent`, when it sent one. */
  userAgent?: string;
}

export interface AccountSignal extends SignalBase {
  kind: 'registered' | 'loggedIn' | 'joined';
}

/** A counted vote: `at` is the gateway's `castAt`. */
export interface VoteSignal extends SignalBase {
  kind: 'voted';
  roundNumber: number;
  imageId: string;
}

export type Signal = AccountSignal | VoteSignal;

export class InvalidAddressError extends Error {
  readonly code = 'INVALID_ADDRESS';
  constructor(address: string) {
    super(`not an IP address: ${JSON.stringify(address.slice(0, 64))}`);
  }
}

/**
 * The stored form of a client address: its network prefix — the /24 of an IPv4 address, the /64
 * of an IPv6 address (an IPv4-mapped IPv6 address counts as IPv4) — as HMAC-SHA-256 keyed with a
 * server secret, hex, prefixed `v4:` or `v6:`. Players behind one home router, office or campus NAT
 * share it; the raw address is not recoverable without the secret (and only by trying every
 * prefix with it, which is why the secret stays on the server and is rotated per deployment).
 */
export function addressPrefixHash(address: string, secret: string | Buffer): string {
  if (secret.length === 0) throw new Error('addressPrefixHash needs a non-empty secret');
  const trimmed = address.trim();
  // node's strict check first: ipaddr.js alone also takes legacy forms such as `0x7f.1`.
  if (isIP(trimmed) === 0 || !ipaddr.isValid(trimmed)) throw new InvalidAddressError(address);
  const parsed = ipaddr.process(trimmed);
  const bytes = parsed.toByteArray();
  const family = parsed.kind() === 'ipv4' ? 'v4' : 'v6';
  const prefix = family === 'v4' ? bytes.slice(0, 3) : bytes.slice(0, 8);
  const digest = createHmac('sha256', secret)
    .update(`${family}/${Buffer.from(prefix).toString('hex')}`)
    .digest('hex');
  return `${family}:${digest}`;
}

/**
 * The stored form of a `User-Agent`: normalised (trimmed, lower-cased, runs of white space
 * collapsed, capped at 512 characters) and then HMAC-SHA-256 keyed with the server secret, hex,
 * prefixed `ua:`. The whole string is kept (hashed), not a parsed browser family: two accounts
 * with byte-identical user agents is the weak corroboration it is used for, and a hash of the
 * whole string keeps no fingerprint readable.
 */
export function userAgentHash(userAgent: string, secret: string | Buffer): string {
  if (secret.length === 0) throw new Error('userAgentHash needs a non-empty secret');
  const normalised = userAgent.trim().toLowerCase().replace(/\s+/g, ' ').slice(0, 512);
  return `ua:${createHmac('sha256', secret).update(normalised).digest('hex')}`;
}

/** The longest device id hashed as sent: the rest of a longer one is not looked at. */
export const DEVICE_ID_MAX_LENGTH = 200;

/**
 * The stored form of a client's `X-Device-ID`: trimmed, capped at `DEVICE_ID_MAX_LENGTH`, then
 * HMAC-SHA-256 keyed with the server secret, hex, prefixed `dev:`. Equal ids compare equal (the
 * report's shared-device links), but the id itself — a bearer value the client sends on every
 * request, and the key of its one-account-per-device claim in a game — is not readable from the
 * stored signals nor replayable from them. '' for an absent id.
 */
export function deviceIdHash(deviceId: string, secret: string | Buffer): string {
  if (secret.length === 0) throw new Error('deviceIdHash needs a non-empty secret');
  const normalised = deviceId.trim().slice(0, DEVICE_ID_MAX_LENGTH);
  if (normalised === '') return '';
  return `dev:${createHmac('sha256', secret).update(normalised).digest('hex')}`;
}
