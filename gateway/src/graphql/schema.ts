import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { accountsResolvers } from './accounts/resolvers';
import { accountsTypeDefs } from './accounts/schema';
import { liveResolvers } from './live/resolvers';
import { liveTypeDefs } from './live/schema';
import { adsResolvers } from './ads/resolvers';
import { adsTypeDefs } from './ads/schema';
import { auditResolvers } from './audit/resolvers';
import { auditTypeDefs } from './audit/schema';
import { withAppErrors } from './errors';
import { disqualificationResolvers } from './disqualification/resolvers';
import { disqualificationTypeDefs } from './disqualification/schema';
import { fairPlayResolvers } from './fair-play/resolvers';
import { fairPlayTypeDefs } from './fair-play/schema';
import { recordsResolvers } from './records/resolvers';
import { recordsTypeDefs } from './records/schema';
import { gameResolvers } from './game/resolvers';
import { gameTypeDefs } from './game/schema';
import { timeResolvers } from './time/resolvers';
import { timeTypeDefs } from './time/schema';
import { tournamentsResolvers } from './tournaments/resolvers';
import { tournamentsTypeDefs } from './tournaments/schema';

/** The root types; each domain module extends them with its own fields. */
const rootTypeDefs = /* GraphQL */ `
  type Query
  type Mutation
`;

const modules = [
  { typeDefs: accountsTypeDefs, resolvers: accountsResolvers },
  { typeDefs: timeTypeDefs, resolvers: timeResolvers },
  { typeDefs: tournamentsTypeDefs, resolvers: tournamentsResolvers },
  { typeDefs: adsTypeDefs, resolvers: adsResolvers },
  { typeDefs: recordsTypeDefs, resolvers: recordsResolvers },
  { typeDefs: fairPlayTypeDefs, resolvers: fairPlayResolvers },
  { typeDefs: auditTypeDefs, resolvers: auditResolvers },
  { typeDefs: disqualificationTypeDefs, resolvers: disqualificationResolvers },
  { typeDefs: gameTypeDefs, resolvers: gameResolvers },
];

/** One schema for GraphQL over HTTP and over graphql-ws. */
export function createSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: [rootTypeDefs, ...modules.map((module) => module.typeDefs), liveTypeDefs],
    // The live resolvers only read payloads the fan-out prepared (graphql/live/resolvers.ts).
    resolvers: [...modules.map((module) => withAppErrors(module.resolvers)), liveResolvers],
  });
}
