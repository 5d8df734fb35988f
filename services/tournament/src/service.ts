import type { ServiceDefinition } from '@underdog/platform';
import { TournamentService, timestampNow } from '@underdog/proto';
import { tournamentConfig, type TournamentConfig } from './config';

/**
 * Tournaments, the scheduler and offline choices (see README). For now it answers the server
 * clock, the first call every client makes (`GET /api/time`).
 */
export const tournamentService: ServiceDefinition<TournamentConfig> = {
  name: 'tournament',
  defaultPort: 8082,
  needs: ['documents'],
  config: tournamentConfig,
  create: ({ infrastructure }) => {
    // Declared now so the process connects to (and reports readiness of) what it will own.
    infrastructure.documents.collection({
      name: 'tournaments',
      indexes: [{ fields: { status: 1 } }],
    });
    return {
      components: [],
      registerRpc: (router) =>
        router.service(TournamentService, {
          getServerTime: () => ({ serverTime: timestampNow() }),
        }),
    };
  },
};
