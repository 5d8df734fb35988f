import type { Clock } from '@underdog/kit';
import type { EventBus } from '@underdog/bus';
import { topics } from '@underdog/platform';
import {
  NotificationRequestSchema,
  SessionRevocationSchema,
  UserEventSchema,
  create,
  encodeEvent,
  timestampFromDate,
  type MessageInitShape,
} from '@underdog/proto';

/** What happened to a user, as published on `user.events` (no secrets: analytics reads it). */
export type UserChange = NonNullable<MessageInitShape<typeof UserEventSchema>['kind']>;

/** Why sessions are revoked, as published on `session.revocations`. */
export type SessionRevocationKind = NonNullable<
  MessageInitShape<typeof SessionRevocationSchema>['kind']
>;

export interface VerificationEmail {
  email: string;
  displayName: string;
  code: string;
  token: string;
  expiresAt: Date;
}

/**
 * The auth service's producer: `user.events` for facts about users, `notification.requests` for
 * the verification e-mail (which carries the code and token, so it goes to that topic only),
 * `session.revocations` for sessions every gateway must read again. All keyed by user id, so
 * one user's messages stay in order.
 */
export class AuthEvents {
  constructor(
    private readonly bus: EventBus,
    private readonly clock: Clock,
  ) {}

  async userChanged(userId: string, ...changes: UserChange[]): Promise<void> {
    const occurredAt = timestampFromDate(this.clock.now());
    const events = changes.map((kind) => create(UserEventSchema, { userId, occurredAt, kind }));
    await this.bus.publish(
      topics.userEvents.name,
      events.map((event) => encodeEvent(UserEventSchema, event, { key: userId })),
    );
  }

  /**
   * Sessions ended or changed (`sessionHashes`: SHA-256 of their ids, never the ids): every
   * gateway drops their cached actors and makes the sockets opened with them read them again.
   */
  async sessionsRevoked(
    userId: string,
    sessionHashes: string[],
    kind: SessionRevocationKind,
  ): Promise<void> {
    if (sessionHashes.length === 0) return;
    const revocation = create(SessionRevocationSchema, {
      userId,
      occurredAt: timestampFromDate(this.clock.now()),
      sessionHashes,
      kind,
    });
    await this.bus.publish(topics.sessionRevocations.name, [
      encodeEvent(SessionRevocationSchema, revocation, { key: userId }),
    ]);
  }

  async verificationEmailRequested(userId: string, email: VerificationEmail): Promise<void> {
    const request = create(NotificationRequestSchema, {
      userId,
      occurredAt: timestampFromDate(this.clock.now()),
      kind: {
        case: 'verificationEmail',
        value: { ...email, expiresAt: timestampFromDate(email.expiresAt) },
      },
    });
    await this.bus.publish(topics.notificationRequests.name, [
      encodeEvent(NotificationRequestSchema, request, { key: userId }),
    ]);
  }
}
