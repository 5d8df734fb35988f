import { AuthService, NotificationService, TournamentService } from '@underdog/proto';
import { createServiceClient, type Client, type RpcEndpoint } from '@underdog/rpc';

/** The services the gateway calls, reached over HTTP or in-process depending on the run mode. */
export interface GatewayClients {
  auth: Client<typeof AuthService>;
  tournament: Client<typeof TournamentService>;
  notification: Client<typeof NotificationService>;
}

export interface GatewayEndpoints {
  auth: RpcEndpoint;
  tournament: RpcEndpoint;
  notification: RpcEndpoint;
}

export function createGatewayClients(endpoints: GatewayEndpoints): GatewayClients {
  return {
    auth: createServiceClient(AuthService, endpoints.auth),
    tournament: createServiceClient(TournamentService, endpoints.tournament),
    notification: createServiceClient(NotificationService, endpoints.notification),
  };
}
