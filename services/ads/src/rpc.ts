import { parseInput, requireAdmin } from '@underdog/kit';
import { AdsService } from '@underdog/proto';
import type { RegisterRoutes } from '@underdog/rpc';
import type { Advertisements } from './advertisements';
import {
  advertisementChangesInput,
  displayPosition,
  newAdvertisementInput,
} from './domain/validation';
import {
  advertisementChangesFromProto,
  advertisementToProto,
  newAdvertisementFromProto,
} from './mapping';

/**
 * The Connect handlers of `AdsService`: check access when the call has a rule that must not
 * depend on the input (admin writes), parse the input with the rules of domain/validation.ts
 * (`parseInput`: 400 VALIDATION_FAILED with the product's message), delegate the typed values,
 * translate back.
 */
export function adsRoutes(advertisements: Advertisements): RegisterRoutes {
  return (router) =>
    router.service(AdsService, {
      listAdvertisements: async (request) => {
        const position =
          request.displayPosition === undefined
            ? undefined
            : parseInput(displayPosition, request.displayPosition);
        const list = await advertisements.list(request.actor, position);
        return { advertisements: list.map(advertisementToProto) };
      },
      createAdvertisement: async (request) => {
        requireAdmin(request.actor);
        const fields = parseInput(newAdvertisementInput, newAdvertisementFromProto(request));
        const created = await advertisements.create(request.actor, fields);
        return { advertisement: advertisementToProto(created) };
      },
      updateAdvertisement: async (request) => {
        requireAdmin(request.actor);
        const changes = parseInput(
          advertisementChangesInput,
          advertisementChangesFromProto(request),
        );
        const updated = await advertisements.update(request.actor, request.id, changes);
        return { advertisement: advertisementToProto(updated) };
      },
      deleteAdvertisement: async (request) => {
        await advertisements.delete(request.actor, request.id);
        return {};
      },
    });
}
