import { timestampDate } from '@underdog/proto';
import { Router } from 'express';
import type { GatewayClients } from './clients';

/**
 * The REST shims of the product spec §7: the documented contract, answered from the same
 * services the GraphQL API uses. Handlers translate and delegate; rules live in the services.
 */
export function createRestRouter(clients: GatewayClients): Router {
  const router = Router();
  router.get('/api/time', async (_req, res) => {
    const { serverTime } = await clients.tournament.getServerTime({});
    if (!serverTime) throw new Error('tournament service returned no server time');
    res.json({ serverTime: timestampDate(serverTime).toISOString() });
  });
  return router;
}
