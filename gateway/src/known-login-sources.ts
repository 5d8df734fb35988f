import { createHash } from 'node:crypto';
import type { LiveStore } from '@underdog/store';
import { addressKey } from './client-address';
import { prefixKey } from './sockets/admission';

/** How long a device or address stays known after the account last signed in from it. */
export const KNOWN_LOGIN_SOURCE_TTL_MS = 90 * 24 * 60 * 60_000;

/**
 * The devices (`X-Device-ID`) and client addresses an account has signed in from, kept in the
 * live store beside the login throttle's counters (Redis in distributed mode, shared by every
 * replica). A login from one of them is throttled on its own budget, so failures from elsewhere
 * cannot lock the owner out (OWASP: a lockout must not become a denial of service). Accounts,
 * devices and addresses are stored as hashes only.
 */
export class KnownLoginSources {
  constructor(
    private readonly store: LiveStore,
    private readonly ttlMs = KNOWN_LOGIN_SOURCE_TTL_MS,
    private readonly prefix = 'gateway:known-login-source:',
  ) {}

  /** The first of `sources` that `account` has signed in from, if any. */
  async knownOf(account: string, sources: readonly string[]): Promise<string | undefined> {
    for (const source of sources) {
      if ((await this.store.get(this.key(account, source))) !== null) return source;
    }
    return undefined;
  }

  /** Remembers (again, for the full period) that `account` signed in from `sources`. */
  async remember(account: string, sources: readonly string[]): Promise<void> {
    for (const source of sources) {
      await this.store.set(this.key(account, source), '1', { ttlMs: this.ttlMs });
    }
  }

  private key(account: string, source: string): string {
    return `${this.prefix}${account}:${source}`;
  }
}

/**
 * Where a request comes from, strongest first: its device id (if it sent one), its address (an
 * IPv6 one by its /64, as the throttles count it: a home network's host rotates its own address
 * within it, and must stay known).
 */
export function loginSources(origin: { ip: string; deviceId: string }): string[] {
  const device = origin.deviceId.trim();
  return [...(device ? [`device:${digest(device)}`] : []), `ip:${digest(addressKey(origin.ip))}`];
}

/**
 * A source the account has not signed in from, by its network (an IPv4 /24, an IPv6 /48): the
 * login throttle gives each such network a budget of its own, under a ceiling shared by all of
 * them (`STRANGER_NETWORKS_PER_WINDOW` budgets), so guesses from one network cannot lock the
 * owner out of a new device on another, and rotating addresses within a network buys nothing.
 */
export function networkSource(origin: { ip: string }): string {
  return `net:${digest(prefixKey(origin.ip))}`;
}

/**
 * How many per-account budgets the sources an account has never signed in from may spend
 * together in a window: an attacker on one network is stopped at one budget and cannot lock a
 * new device on another network out; one on this many networks or more can (and is stopped at
 * this many budgets of guesses, where a single shared budget stopped it at one).
 */
export const STRANGER_NETWORKS_PER_WINDOW = 3;

/** An account by its normalised e-mail, hashed to keep addresses out of Redis. */
export function accountId(email: string): string {
  return digest(email.trim().toLowerCase());
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 32);
}
