import {
  AdsService,
  AuthService,
  GameService,
  NotificationService,
  TournamentService,
} from '@underdog/proto';
import { createServiceClient, type Client, type RpcEndpoint } from '@underdog/rpc';

/** The services the gateway calls, reached over HTTP or in-process depending on the run mode. */
export interface GatewayClients {
  auth: Client<typeof AuthService>;
  tournament: Client<typeof TournamentService>;
  game: Client<typeof GameService>;
  ads: Client<typeof AdsService>;
  notification: Client<typeof NotificationService>;
}

export interface GatewayEndpoints {
  auth: RpcEndpoint;
  tournament: RpcEndpoint;
  game: RpcEndpoint;
  ads: RpcEndpoint;
  notification: RpcEndpoint;
}

export function createGatewayClients(endpoints: GatewayEndpoints): GatewayClients {
  return {
    auth: createServiceClient(AuthService, endpoints.auth),
    tournament: createServiceClient(TournamentService, endpoints.tournament),
    game: createServiceClient(GameService, endpoints.game),
    ads: createServiceClient(AdsService, endpoints.ads),
    notification: createServiceClient(NotificationService, endpoints.notification),
  };
}
