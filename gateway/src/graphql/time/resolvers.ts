import { serverTime } from '../../time';
import type { Resolvers } from '../context';

export const timeResolvers: Resolvers = {
  Query: {
    serverTime: (_parent, _args, { clients }) => serverTime(clients),
  },
};
