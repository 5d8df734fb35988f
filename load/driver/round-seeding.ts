/**
 * The round bench's audience: the tournament's facts and one join per player, through the live
 * store's own steps (as the lifecycle consumer and JoinTournament do).
 */
import type { LiveGames } from '../../services/game-engine/src/adapters/live-games';
import { benchUserId } from './live-round-kit';

/** Records the tournament, then joins `players` bench players to it, 2,000 at a time. */
export async function seedAudience(
  live: LiveGames,
  facts: Parameters<LiveGames['recordTournament']>[0],
  players: number,
): Promise<void> {
  const tournamentId = facts.id;
  await live.recordTournament(facts);
  const JOINS_AT_ONCE = 2_000;
  for (let from = 0; from < players; from += JOINS_AT_ONCE) {
    const replies = await Promise.all(
      Array.from({ length: Math.min(JOINS_AT_ONCE, players - from) }, (_, i) => {
        const userId = benchUserId(from + i);
        return live.join(tournamentId, {
          userId,
          username: userId,
          deviceId: `device-${userId}`,
          now: Date.now(),
        });
      }),
    );
    const refused = replies.find((reply) => reply !== 'JOINED');
    if (refused) throw new Error(`a bench player's join was answered ${refused}`);
  }
}
