import { timestampDate } from '@underdog/proto';
import { appErrorFromRpc } from '@underdog/rpc';
import type { GatewayClients } from './clients';

/** The server clock (ISO 8601) from the tournament service, which owns game time. */
export async function serverTime(clients: GatewayClients): Promise<string> {
  let answer;
  try {
    answer = await clients.tournament.getServerTime({});
  } catch (error) {
    throw appErrorFromRpc(error);
  }
  if (!answer.serverTime) throw new Error('the tournament service returned no server time');
  return timestampDate(answer.serverTime).toISOString();
}
