import { AdsService } from '@underdog/proto';
import type { RegisterRoutes } from '@underdog/rpc';
import type { Advertisements } from './advertisements';
import {
  advertisementChangesFromProto,
  advertisementToProto,
  newAdvertisementFromProto,
} from './mapping';

/** The Connect handlers of `AdsService`: translate the request, delegate, translate back. */
export function adsRoutes(advertisements: Advertisements): RegisterRoutes {
  return (router) =>
    router.service(AdsService, {
      listAdvertisements: async (request) => {
        const list = await advertisements.list(request.actor, request.displayPosition);
        return { advertisements: list.map(advertisementToProto) };
      },
      createAdvertisement: async (request) => {
        const created = await advertisements.create(
          request.actor,
          newAdvertisementFromProto(request),
        );
        return { advertisement: advertisementToProto(created) };
      },
      updateAdvertisement: async (request) => {
        const updated = await advertisements.update(
          request.actor,
          request.id,
          advertisementChangesFromProto(request),
        );
        return { advertisement: advertisementToProto(updated) };
      },
      deleteAdvertisement: async (request) => {
        await advertisements.delete(request.actor, request.id);
        return {};
      },
    });
}
