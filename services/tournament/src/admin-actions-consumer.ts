import { eventConsumer, messageLogContext, type BusMessage, type EventBus } from '@underdog/bus';
import type { Component, Logger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  AdminActionEventSchema,
  EventHeader,
  fromBinary,
  timestampDate,
  type AdminActionEvent,
} from '@underdog/proto';
import type { AdminActionRow } from './adapters/admin-action-repository';
import type { AuditLog } from './application/audit-log';

/*
 * Consumer of `admin.actions` (group `tournament-admin-actions`): the audit log. Each event is
 * stored once, by its `event-id` (Kafka delivers at least once), so a redelivered batch adds
 * nothing. A database failure throws (the batch comes again); an event that can never be a row
 * (no id, no actor, no case this version knows) is logged and skipped.
 */

export const adminActionsGroupId = 'tournament-admin-actions';

/** What an `AdminActionEvent` names, by case. */
function targetsOf(kind: AdminActionEvent['kind']): Partial<AdminActionRow> | undefined {
  switch (kind.case) {
    case 'tournamentCreated':
    case 'tournamentUpdated':
    case 'tournamentDeleted':
      return { tournamentId: kind.value.tournamentId };
    case 'advertisementCreated':
    case 'advertisementUpdated':
    case 'advertisementDeleted':
      return { advertisementId: kind.value.advertisementId };
    case 'participantDisqualified':
      return { tournamentId: kind.value.tournamentId, targetUserId: kind.value.userId };
    case 'prizePaidConfirmed':
      return { tournamentId: kind.value.tournamentId, targetUserId: kind.value.winnerUserId };
    case 'attemptRefused':
    case 'fairPlayReportRead':
      return kind.value.tournamentId ? { tournamentId: kind.value.tournamentId } : {};
    case undefined:
      return undefined;
  }
}

/** An event as the audit log's row; undefined when it cannot be one. */
export function adminActionRowOf(
  event: AdminActionEvent,
  message: BusMessage,
): AdminActionRow | undefined {
  const id = message.headers[EventHeader.id];
  const targets = targetsOf(event.kind);
  // Only a refused attempt may have no actor (a visitor's).
  const actorless = !event.actorUserId && event.kind.case !== 'attemptRefused';
  if (!id || actorless || !targets || !event.kind.case) return undefined;
  return {
    id,
    action: event.kind.case,
    actorUserId: event.actorUserId,
    actorUsername: event.actorUsername,
    occurredAt: event.occurredAt ? timestampDate(event.occurredAt) : new Date(message.timestamp),
    summary: event.summary,
    requestId: event.requestId,
    ...(event.clientAddress ? { clientAddress: event.clientAddress } : {}),
    ...targets,
  };
}

/** The consumer as a process component. */
export function adminActionsConsumer(options: {
  bus: EventBus;
  auditLog: AuditLog;
  logger: Logger;
}): Component {
  const { auditLog, logger } = options;
  const logContext = (message: BusMessage) => messageLogContext(message, 'actorUserId');
  return eventConsumer(options.bus, {
    name: 'admin-actions-consumer',
    groupId: adminActionsGroupId,
    topic: topics.adminActions.name,
    fromBeginning: true,
    decode: (bytes) => fromBinary(AdminActionEventSchema, bytes),
    handle: async (event, message) => {
      const row = adminActionRowOf(event, message);
      if (row === undefined) {
        logger.warn(logContext(message), 'unusable admin action; skipped');
        return;
      }
      await auditLog.record(row);
    },
    what: 'admin action',
    logContext,
    logger,
  });
}
