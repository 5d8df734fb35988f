import { defaultAdvertisementPosition } from '../../ads';
import { advertisementChangesInput, newAdvertisementInput } from '../../inputs';
import { parseBody } from '../../validation';
import type { Resolvers } from '../context';

export const adsResolvers: Resolvers = {
  Query: {
    advertisements: (_parent, args: { position?: string | null }, { advertisements, origin }) =>
      advertisements.listActive(origin, args.position ?? defaultAdvertisementPosition),
    adminAdvertisements: (_parent, _args, { advertisements, origin }) =>
      advertisements.listAll(origin),
  },
  Mutation: {
    createAdvertisement: (_parent, { input }: { input: unknown }, { advertisements, origin }) =>
      advertisements.create(origin, parseBody(newAdvertisementInput, input)),
    updateAdvertisement: (
      _parent,
      args: { id: string; input: unknown },
      { advertisements, origin },
    ) => advertisements.update(origin, args.id, parseBody(advertisementChangesInput, args.input)),
    deleteAdvertisement: (_parent, { id }: { id: string }, { advertisements, origin }) =>
      advertisements.delete(origin, id).then(() => true),
  },
};
