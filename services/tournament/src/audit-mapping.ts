import {
  timestampFromDate,
  type AdminActionSchema,
  type MessageInitShape,
  type PrizePaymentSchema,
} from '@underdog/proto';
import type { StoredAdminAction } from './adapters/admin-action-repository';
import type { StoredPrize } from './adapters/prize-repository';

/** The audit log's and prize payments' rows as the RPC replies carry them. */

export function toProtoAdminAction(
  row: StoredAdminAction,
): MessageInitShape<typeof AdminActionSchema> {
  return {
    id: row.id,
    action: row.action,
    actorUserId: row.actorUserId ?? '',
    actorUsername: row.actorUsername ?? '',
    occurredAt: timestampFromDate(row.occurredAt),
    tournamentId: row.tournamentId ?? '',
    advertisementId: row.advertisementId ?? '',
    targetUserId: row.targetUserId ?? '',
    summary: row.summary ?? '',
    requestId: row.requestId ?? '',
    clientAddress: row.clientAddress ?? '',
  };
}

export function toProtoPrizePayment(
  prize: StoredPrize,
): MessageInitShape<typeof PrizePaymentSchema> {
  return {
    tournamentId: prize.id,
    winnerUserId: prize.winnerUserId ?? '',
    winnerUsername: prize.winnerUsername ?? '',
    ...(prize.prize ? { prize: prize.prize } : {}),
    ...(prize.paidAt ? { paidAt: timestampFromDate(prize.paidAt) } : {}),
    paidByUserId: prize.paidByUserId ?? '',
    paidByUsername: prize.paidByUsername ?? '',
  };
}
