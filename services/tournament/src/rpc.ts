import { requireAdmin, requireVerifiedUser, type Clock } from '@underdog/kit';
import { TournamentService, timestampFromDate } from '@underdog/proto';
import type { RegisterRoutes } from '@underdog/rpc';
import type { Integrity } from './application/integrity';
import type { OfflineChoices } from './application/offline-choices';
import type { Tournaments } from './application/tournaments';
import { parseDraft, validateOfflineChoices } from './domain/validation';
import {
  draftOf,
  offlineChoicesOf,
  toProtoIntegrityReport,
  toProtoOfflineChoices,
  toProtoTournament,
} from './mapping';

export interface TournamentRpcDependencies {
  tournaments: Tournaments;
  offline: OfflineChoices;
  integrity: Integrity;
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
  integrity,
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
      getIntegrityReport: async ({ actor, tournamentId }) => {
        requireAdmin(actor);
        return { report: toProtoIntegrityReport(await integrity.report(actor, tournamentId)) };
      },
    });
}
