import { addressPrefixHash, deviceIdHash, userAgentHash } from '@underdog/fair-play';
import type { EventBus } from '@underdog/bus';
import type { Logger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  FairPlaySignalSchema,
  create,
  encodeEvent,
  timestampFromDate,
  type MessageInitShape,
} from '@underdog/proto';
import type { RequestOrigin } from './session';

type SignalKind = MessageInitShape<typeof FairPlaySignalSchema>['kind'];

/** Where a request came from, as the fair-play report keeps it: keyed hashes only. */
export interface OriginHashes {
  /** `dev:` + HMAC of the X-Device-ID; '' when absent. */
  deviceId: string;
  /** `v4:`/`v6:` + HMAC of the address's /24 or /64; '' when unknown. */
  addressPrefix: string;
  /** `ua:` + HMAC of the normalised User-Agent; '' when absent. */
  userAgent: string;
}

/** An origin's hashes, with the raw values they were computed from (a socket's may change). */
interface HashedOrigin {
  ip: string;
  deviceId: string;
  userAgent: string | undefined;
  /** What leaves the process: the hashes alone. */
  hashes: OriginHashes;
}

/**
 * Fair play (issue 28, docs/fairness.md): after a player's register, login or join succeeded,
 * the gateway publishes a `FairPlaySignal` on `fair-play.signals` with the device id as a keyed
 * hash, the client address as a keyed hash of its /24 or /64 and the User-Agent as a keyed hash
 * (all HMAC-SHA-256 with FAIR_PLAY_SECRET); the raw device id, address and user agent never leave
 * this process. A vote sends no signal of its own (issue 36): `Games` puts the same hashes
 * (`hashesOf`) on the vote's `game.votes` event, which the tournament service reads anyway.
 *
 * The hashes are computed once per origin (a socket keeps its origin for its life, so three
 * HMACs per socket, not per vote) and again only when its address, device or user agent changed.
 *
 * Fire-and-forget: nothing is awaited by the request, and a failure (no session, a bus error) is
 * logged, never thrown — a lost signal weakens the fair-play report, it never fails a player.
 */
export class FairPlaySignals {
  /** Per origin object: gone with it (a socket's, when the socket goes). */
  private readonly hashed = new WeakMap<RequestOrigin, HashedOrigin>();

  constructor(
    private readonly deps: {
      bus: EventBus;
      secret: string;
      logger: Logger;
      now?: () => Date;
    },
  ) {}

  registered(origin: RequestOrigin, userId: string): void {
    this.publish(origin, Promise.resolve(userId), { case: 'registered', value: {} });
  }

  loggedIn(origin: RequestOrigin, userId: string): void {
    this.publish(origin, Promise.resolve(userId), { case: 'loggedIn', value: {} });
  }

  /** After a successful join: the user is the origin's session (cached by the gateway). */
  joined(origin: RequestOrigin, tournamentId: string): void {
    this.publish(origin, this.userOf(origin), { case: 'joined', value: { tournamentId } });
  }

  /** The event for `userId`, without publishing (tests, and register/login/join). */
  event(origin: RequestOrigin, userId: string, kind: SignalKind, at: Date) {
    const { deviceId, addressPrefix, userAgent } = this.hashesOf(origin);
    return create(FairPlaySignalSchema, {
      userId,
      occurredAt: timestampFromDate(at),
      deviceId,
      addressPrefix,
      userAgent,
      kind,
    });
  }

  /**
   * The origin's keyed hashes, computed once per origin object (a socket's, for every vote on
   * it) and again only when one of its raw values changed (a socket's device id can arrive with
   * `connection_init` after the upgrade).
   */
  hashesOf(origin: RequestOrigin): OriginHashes {
    const known = this.hashed.get(origin);
    if (
      known !== undefined &&
      known.ip === origin.ip &&
      known.deviceId === origin.deviceId &&
      known.userAgent === origin.userAgent
    ) {
      return known.hashes;
    }
    const { secret } = this.deps;
    const hashes: OriginHashes = {
      deviceId: deviceIdHash(origin.deviceId, secret),
      addressPrefix: this.addressPrefix(origin.ip),
      userAgent: origin.userAgent ? userAgentHash(origin.userAgent, secret) : '',
    };
    this.hashed.set(origin, {
      ip: origin.ip,
      deviceId: origin.deviceId,
      userAgent: origin.userAgent,
      hashes,
    });
    return hashes;
  }

  private async userOf(origin: RequestOrigin): Promise<string> {
    return (await origin.session.actor())?.userId ?? '';
  }

  private addressPrefix(ip: string): string {
    try {
      return addressPrefixHash(ip, this.deps.secret);
    } catch {
      return ''; // 'unknown' or a socket without an address: no prefix rather than no signal
    }
  }

  private publish(origin: RequestOrigin, userId: Promise<string>, kind: SignalKind): void {
    const at = (this.deps.now ?? (() => new Date()))();
    void userId
      .then(async (id) => {
        if (!id) return;
        const event = this.event(origin, id, kind, at);
        await this.deps.bus.publish(topics.fairPlaySignals.name, [
          encodeEvent(FairPlaySignalSchema, event, { key: id }),
        ]);
      })
      .catch((error: unknown) => {
        this.deps.logger.warn({ err: error, signal: kind?.case }, 'player signal not published');
      });
  }
}
