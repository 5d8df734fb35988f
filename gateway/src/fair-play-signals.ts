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

/**
 * Fair play (issue 28, docs/fairness.md): after a player's register, login, join or vote
 * succeeded, the gateway publishes a `FairPlaySignal` on `fair-play.signals` with the device id
 * as a keyed hash, the client address as a keyed hash of its /24 or /64 and the User-Agent as a
 * keyed hash (all HMAC-SHA-256 with FAIR_PLAY_SECRET); the raw device id, address and user
 * agent never leave this process.
 *
 * Fire-and-forget: nothing is awaited by the request, and a failure (no session, a bus error) is
 * logged, never thrown — a lost signal weakens the fair-play report, it never fails a player.
 */
export class FairPlaySignals {
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

  voted(
    origin: RequestOrigin,
    vote: { tournamentId: string; roundNumber: number; imageId: string },
  ): void {
    this.publish(origin, this.userOf(origin), {
      case: 'voted',
      value: {
        tournamentId: vote.tournamentId,
        roundNumber: vote.roundNumber,
        imageId: vote.imageId,
      },
    });
  }

  /** The event for `userId`, without publishing (tests, and the one place hashing happens). */
  event(origin: RequestOrigin, userId: string, kind: SignalKind, at: Date) {
    return create(FairPlaySignalSchema, {
      userId,
      occurredAt: timestampFromDate(at),
      deviceId: deviceIdHash(origin.deviceId, this.deps.secret),
      addressPrefix: this.addressPrefix(origin.ip),
      userAgent: origin.userAgent ? userAgentHash(origin.userAgent, this.deps.secret) : '',
      kind,
    });
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
