import type { Clock } from '@underdog/kit';
import { GameService } from '@underdog/proto';
import type { RegisterRoutes } from '@underdog/rpc';
import type { Disqualifications } from './application/disqualifications';
import type { Players } from './application/players';
import type { RecordsRpc } from './records-rpc';
import { toLiveGame, toPlayerView } from './mapping';

/** The Connect handlers: each translates the request, delegates, and translates the answer. */
export function gameRoutes(
  players: Players,
  clock: Clock,
  records: RecordsRpc,
  disqualifications: Disqualifications,
): RegisterRoutes {
  return (router) =>
    router.service(GameService, {
      ...records,
      joinTournament: async ({ actor, tournamentId }) => ({
        player: toPlayerView(await players.join(actor, tournamentId)),
      }),
      getLiveGame: async ({ actor, tournamentId }) => ({
        game: toLiveGame(tournamentId, await players.liveGame(actor, tournamentId), clock.now()),
      }),
      disqualifyParticipant: async ({ actor, tournamentId, userId, reason }) => {
        const answer = await disqualifications.disqualify(actor, { tournamentId, userId, reason });
        return {
          duringGame: answer.duringGame,
          effectiveRound: answer.effectiveRound,
          ...(answer.winnerUsername === undefined ? {} : { winnerUsername: answer.winnerUsername }),
        };
      },
    });
}
