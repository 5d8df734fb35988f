import { AppError } from '@underdog/kit';
import { ActorSchema, create } from '@underdog/proto';
import { Router } from 'express';
import { z } from 'zod';
import { delegate } from './actors';
import type { RequestOrigins } from './request-origins';
import type { GatewayClients } from './clients';
import { roleName } from './users';
import { parseBody } from './validation';

/** The benchmark's seeding request: at most 5000 players a call (the auth RPC's bound). */
export const benchmarkPlayersInput = z.object({
  count: z.number().int().min(1).max(5000),
  label: z.string().regex(/^[a-z0-9]{1,8}$/),
  tournamentId: z.string().min(1).optional(),
});

/** One seeded player: the cookie value its socket sends and the device id it plays from. */
export interface BenchmarkPlayer {
  userId: string;
  username: string;
  sessionId: string;
  deviceId: string;
}

/** How many joins run at once while seeding: enough to keep the engine busy, not flooded. */
const JOINS_AT_ONCE = 64;

/**
 * `POST /api/benchmark/players` — the benchmark's players (load/README.md), mounted only with
 * BENCHMARK_SEED=on, which production refuses at start; admins only. Creates verified users with
 * a session each through the auth service's `SeedBenchmarkUsers` (no password hashing per user,
 * no e-mail) and, given a tournament, joins each one through the game engine's JoinTournament,
 * as a player's `joinTournament` does (with the actor built from the seeded user). Answers `{ cookieName, players }`.
 */
export function benchmarkRouter(deps: {
  clients: Pick<GatewayClients, 'auth' | 'game'>;
  origins: RequestOrigins;
}): Router {
  const router = Router();
  router.post('/api/benchmark/players', async (req, res) => {
    const { user } = await deps.origins.fromHttp(req, res).session.require();
    if (roleName(user.role) !== 'admin') {
      throw new AppError('FORBIDDEN', 'Admin access required', { reason: 'ADMIN_ONLY' });
    }
    const { count, label, tournamentId } = parseBody(benchmarkPlayersInput, req.body);
    const { users } = await delegate(deps.clients.auth.seedBenchmarkUsers({ count, label }));
    const players: BenchmarkPlayer[] = users.map((seeded) => ({
      userId: seeded.userId,
      username: seeded.username,
      sessionId: seeded.sessionId,
      deviceId: seeded.deviceId,
    }));
    if (tournamentId) {
      for (let start = 0; start < players.length; start += JOINS_AT_ONCE) {
        await Promise.all(
          players.slice(start, start + JOINS_AT_ONCE).map((player) =>
            // The actor is known (a verified user just made): no session lookup per join.
            delegate(
              deps.clients.game.joinTournament({
                actor: create(ActorSchema, {
                  userId: player.userId,
                  role: 'user',
                  isEmailVerified: true,
                  deviceId: player.deviceId,
                  username: player.username,
                }),
                tournamentId,
              }),
            ),
          ),
        );
      }
    }
    res.json({ cookieName: deps.origins.cookie.name, players });
  });
  return router;
}
