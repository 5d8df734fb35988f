import { timestampDate, type AdminAction, type PrizePayment } from '@underdog/proto';
import { z } from 'zod';
import { actorOf, delegate } from './actors';
import type { GatewayClients } from './clients';
import type { TournamentHistoryItemView } from './records';
import type { RequestOrigin } from './session';
import { parseBody } from './validation';

/** One administrator's action as both edges show it (REST `GET /api/admin/audit`, GraphQL `adminActions`). */
export interface AdminActionView {
  id: string;
  /** tournamentCreated, tournamentUpdated, tournamentDeleted, advertisementCreated, advertisementUpdated, advertisementDeleted, participantDisqualified, prizePaidConfirmed, attemptRefused, fairPlayReportRead. */
  action: string;
  /** `userId` '' for an attempt refused to a visitor. */
  actor: { userId: string; username: string | null };
  /** ISO 8601. */
  occurredAt: string;
  tournamentId: string | null;
  advertisementId: string | null;
  targetUserId: string | null;
  /** One line for people (English, as is). */
  summary: string;
  requestId: string | null;
  /** The client address of the request (TRUST_PROXY rule); null when not recorded. */
  clientAddress: string | null;
}

export interface AdminActionsPageView {
  /** Newest first. */
  actions: AdminActionView[];
  /** Pass as `before` for the next (older) page; null when there is none. */
  nextBefore: string | null;
}

/** A confirmed prize payment: who confirmed it, when, to whom. */
export interface PrizePaymentView {
  tournamentId: string;
  winnerUserId: string;
  winnerUsername: string | null;
  prize: string | null;
  /** ISO 8601. */
  paidAt: string;
  paidBy: { userId: string; username: string | null };
}

/** `POST /api/admin/tournaments/{id}/prize-paid`, GraphQL `confirmPrizePaid`. */
export interface PrizeConfirmationView {
  payment: PrizePaymentView;
  /** True when the prize had been confirmed before: `payment` is that first confirmation. */
  alreadyConfirmed: boolean;
}

/** `?limit=&before=` of `GET /api/admin/audit` (GraphQL passes the same two arguments). */
export const auditPageQuery = z.object({
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be between 1 and 200' })
    .max(200, { error: 'must be between 1 and 200' })
    .optional(),
  before: z.string({ error: 'must be a string' }).max(300, { error: 'is too long' }).optional(),
});

const orNull = (value: string | undefined) => (value ? value : null);

export function toAdminActionView(action: AdminAction): AdminActionView {
  return {
    id: action.id,
    action: action.action,
    actor: { userId: action.actorUserId, username: orNull(action.actorUsername) },
    occurredAt: (action.occurredAt ? timestampDate(action.occurredAt) : new Date(0)).toISOString(),
    tournamentId: orNull(action.tournamentId),
    advertisementId: orNull(action.advertisementId),
    targetUserId: orNull(action.targetUserId),
    summary: action.summary,
    requestId: orNull(action.requestId),
    clientAddress: orNull(action.clientAddress),
  };
}

export function toPrizePaymentView(payment: PrizePayment): PrizePaymentView {
  return {
    tournamentId: payment.tournamentId,
    winnerUserId: payment.winnerUserId,
    winnerUsername: orNull(payment.winnerUsername),
    prize: payment.prize ?? null,
    paidAt: (payment.paidAt ? timestampDate(payment.paidAt) : new Date(0)).toISOString(),
    paidBy: { userId: payment.paidByUserId, username: orNull(payment.paidByUsername) },
  };
}

/** The history row with its prize payment (null: not confirmed paid). */
export type HistoryItemWithPaymentView = TournamentHistoryItemView & {
  prizePayment: PrizePaymentView | null;
};

/** One listing of payments per request: the history's rows share it. */
const paymentsOfRequest = new WeakMap<RequestOrigin, Promise<Map<string, PrizePaymentView>>>();

/**
 * The audit log and prize payments behind both edges (issue 28 §4). Admin only: a visitor gets
 * 401 `NO_SESSION`, anyone else 403 `ADMIN_ONLY` (the tournament service decides).
 * Confirming a payment goes through the audited clients (admin-actions.ts), so it is itself in
 * the audit log.
 */
export class AuditReads {
  constructor(private readonly clients: Pick<GatewayClients, 'tournament'>) {}

  async list(
    origin: RequestOrigin,
    page: { limit?: number | undefined; before?: string | undefined },
  ): Promise<AdminActionsPageView> {
    const { limit, before } = parseBody(auditPageQuery, page);
    const answer = await delegate(
      this.clients.tournament.listAdminActions({
        actor: await actorOf(origin),
        limit: limit ?? 0,
        before: before ?? '',
      }),
    );
    return {
      actions: answer.actions.map(toAdminActionView),
      nextBefore: orNull(answer.nextBefore),
    };
  }

  async confirmPrizePaid(
    origin: RequestOrigin,
    tournamentId: string,
  ): Promise<PrizeConfirmationView> {
    const { payment, alreadyConfirmed } = await delegate(
      this.clients.tournament.confirmPrizePaid({ actor: await actorOf(origin), tournamentId }),
    );
    if (!payment) throw new Error('the tournament service confirmed no payment');
    paymentsOfRequest.delete(origin);
    return { payment: toPrizePaymentView(payment), alreadyConfirmed };
  }

  /** The confirmed payment of a tournament, or null; one listing per request. */
  async paymentOf(origin: RequestOrigin, tournamentId: string): Promise<PrizePaymentView | null> {
    let payments = paymentsOfRequest.get(origin);
    if (!payments) {
      payments = this.payments(origin);
      paymentsOfRequest.set(origin, payments);
    }
    return (await payments).get(tournamentId) ?? null;
  }

  /** The history (REST) with each row's payment. */
  async withPayments(
    origin: RequestOrigin,
    items: TournamentHistoryItemView[],
  ): Promise<HistoryItemWithPaymentView[]> {
    const payments = await this.payments(origin);
    return items.map((item) => ({
      ...item,
      prizePayment: payments.get(item.tournament.id) ?? null,
    }));
  }

  private async payments(origin: RequestOrigin): Promise<Map<string, PrizePaymentView>> {
    const { payments } = await delegate(
      this.clients.tournament.listPrizePayments({ actor: await actorOf(origin) }),
    );
    return new Map(payments.map((payment) => [payment.tournamentId, toPrizePaymentView(payment)]));
  }
}
