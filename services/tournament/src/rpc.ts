import { requireAdmin, requireVerifiedUser, type Clock } from '@underdog/kit';
import { TournamentService, timestampFromDate } from '@underdog/proto';
import type { RegisterRoutes } from '@underdog/rpc';
import type { AuditLog } from './application/audit-log';
import type { FairPlay } from './application/fair-play';
import type { OfflineChoices } from './application/offline-choices';
import type { Prizes } from './application/prizes';
import type { Tournaments } from './application/tournaments';
import { toProtoAdminAction, toProtoPrizePayment } from './audit-mapping';
import { parseDraft, validateOfflineChoices } from './domain/validation';
import {
  draftOf,
  offlineChoicesOf,
  toProtoFairPlayReport,
  toProtoOfflineChoices,
  toProtoTournament,
} from './mapping';

export interface TournamentRpcDependencies {
  tournaments: Tournaments;
  offline: OfflineChoices;
  fairPlay: FairPlay;
  auditLog: AuditLog;
  prizes: Prizes;
  clock: Clock;
}

/**
 * The Connect handlers: each checks access first where the call has a rule that must not depend
 * on the input, applies the input rules of domain/validation.ts (the one validation layer),
 * delegates the typed values, and translates the answer.
 */
export function tournamentRoutes({
  tournaments,
  offline,
  fairPlay,
  auditLog,
  prizes,
  clock,
}: TournamentRpcDependencies): RegisterRoutes {
  return (router) =>
    router.service(TournamentService, {
      getServerTime: () => ({ serverTime: timestampFromDate(clock.now()) }),
      listTournaments: async () => ({
        tournaments: (await tournaments.list()).map(toProtoTournament),
      }),
      getTournament: async ({ id }) => ({
        tournament: toProtoTournament(await tournaments.get(id)),
      }),
      createTournament: async (request) => {
        requireAdmin(request.actor);
        const draft = parseDraft(draftOf(request));
        return { tournament: toProtoTournament(await tournaments.create(request.actor, draft)) };
      },
      updateTournament: async (request) => {
        requireAdmin(request.actor);
        const draft = parseDraft(draftOf(request));
        return {
          tournament: toProtoTournament(await tournaments.update(request.actor, request.id, draft)),
        };
      },
      deleteTournament: async ({ actor, id }) => {
        await tournaments.delete(actor, id);
        return {};
      },
      saveOfflineChoices: async ({ actor, tournamentId, choices }) => {
        requireVerifiedUser(actor);
        const valid = validateOfflineChoices(offlineChoicesOf(choices));
        const saved = await offline.save(actor, tournamentId, valid);
        return {
          choices: toProtoOfflineChoices(saved.choices),
          tournament: toProtoTournament(saved.tournament),
        };
      },
      getOfflineChoices: async ({ actor, tournamentId }) => ({
        choices: toProtoOfflineChoices(await offline.list(actor, tournamentId)),
      }),
      hasOfflineChoices: async ({ actor, tournamentId }) => ({
        hasChoices: await offline.has(actor, tournamentId),
      }),
      getFairPlayReport: async ({ actor, tournamentId }) => {
        requireAdmin(actor);
        return { report: toProtoFairPlayReport(await fairPlay.report(actor, tournamentId)) };
      },
      listAdminActions: async ({ actor, limit, before }) => {
        const page = await auditLog.list(actor, limit, before);
        return { actions: page.actions.map(toProtoAdminAction), nextBefore: page.nextBefore ?? '' };
      },
      confirmPrizePaid: async ({ actor, tournamentId }) => {
        const { prize, alreadyConfirmed } = await prizes.confirmPaid(actor, tournamentId);
        return { payment: toProtoPrizePayment(prize), alreadyConfirmed };
      },
      listPrizePayments: async ({ actor }) => ({
        payments: (await prizes.paid(actor)).map(toProtoPrizePayment),
      }),
    });
}
