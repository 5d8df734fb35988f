import type { RegisterRoutes } from '@underdog/rpc';
import { TournamentService, timestampFromDate } from '@underdog/proto';
import type { OfflineRegistrations } from './application/offline-registrations';
import type { Tournaments } from './application/tournaments';
import type { Clock } from './domain/tournament';
import {
  callerOf,
  draftOf,
  offlineChoicesOf,
  toProtoOfflineChoices,
  toProtoTournament,
} from './mapping';

export interface TournamentRpcDependencies {
  tournaments: Tournaments;
  offline: OfflineRegistrations;
  now: Clock;
}

/** The Connect handlers: each translates the request, delegates, and translates the answer. */
export function tournamentRoutes({
  tournaments,
  offline,
  now,
}: TournamentRpcDependencies): RegisterRoutes {
  return (router) =>
    router.service(TournamentService, {
      getServerTime: () => ({ serverTime: timestampFromDate(now()) }),
      listTournaments: async () => ({
        tournaments: (await tournaments.list()).map(toProtoTournament),
      }),
      getTournament: async ({ id }) => ({
        tournament: toProtoTournament(await tournaments.get(id)),
      }),
      createTournament: async (request) => ({
        tournament: toProtoTournament(
          await tournaments.create(callerOf(request.actor), draftOf(request)),
        ),
      }),
      updateTournament: async (request) => ({
        tournament: toProtoTournament(
          await tournaments.update(callerOf(request.actor), request.id, draftOf(request)),
        ),
      }),
      deleteTournament: async ({ actor, id }) => {
        await tournaments.delete(callerOf(actor), id);
        return {};
      },
      saveOfflineChoices: async ({ actor, tournamentId, choices }) => {
        const saved = await offline.save(callerOf(actor), tournamentId, offlineChoicesOf(choices));
        return {
          choices: toProtoOfflineChoices(saved.choices),
          tournament: toProtoTournament(saved.tournament),
        };
      },
      getOfflineChoices: async ({ actor, tournamentId }) => ({
        choices: toProtoOfflineChoices(await offline.list(callerOf(actor), tournamentId)),
      }),
      hasOfflineChoices: async ({ actor, tournamentId }) => ({
        hasChoices: await offline.has(callerOf(actor), tournamentId),
      }),
    });
}
