import { defaultAdvertisementPosition } from '../../ads';
import { advertisementChangesInput, newAdvertisementInput } from '../../inputs';
import { parseBody } from '../../validation';
import type { Resolvers } from '../context';

export const adsResolvers: Resolvers = {
  Query: {
    advertisements: (_parent, args: { position?: string | null }, { advertisements, caller }) =>
      advertisements.listActive(caller, args.position ?? defaultAdvertisementPosition),
    adminAdvertisements: (_parent, _args, { advertisements, caller }) =>
      advertisements.listAll(caller),
  },
  Mutation: {
    createAdvertisement: (_parent, { input }: { input: unknown }, { advertisements, caller }) =>
      advertisements.create(caller, parseBody(newAdvertisementInput, input)),
    updateAdvertisement: (
      _parent,
      args: { id: string; input: unknown },
      { advertisements, caller },
    ) => advertisements.update(caller, args.id, parseBody(advertisementChangesInput, args.input)),
    deleteAdvertisement: (_parent, { id }: { id: string }, { advertisements, caller }) =>
      advertisements.delete(caller, id).then(() => true),
  },
};
