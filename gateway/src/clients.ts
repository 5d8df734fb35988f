import { TournamentService } from '@underdog/proto';
import { createServiceClient, type Client, type RpcEndpoint } from '@underdog/rpc';

/** The services the gateway calls, reached over HTTP or in-process depending on the run mode. */
export interface GatewayClients {
  tournament: Client<typeof TournamentService>;
}

export function createGatewayClients(endpoints: { tournament: RpcEndpoint }): GatewayClients {
  return { tournament: createServiceClient(TournamentService, endpoints.tournament) };
}
