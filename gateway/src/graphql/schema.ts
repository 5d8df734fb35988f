import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { accountsResolvers } from './accounts/resolvers';
import { accountsTypeDefs } from './accounts/schema';
import { withAppErrors } from './errors';
import { timeResolvers } from './time/resolvers';
import { timeTypeDefs } from './time/schema';

/** The root types; each domain module extends them with its own fields. */
const rootTypeDefs = /* GraphQL */ `
  type Query
  type Mutation
`;

const modules = [
  { typeDefs: accountsTypeDefs, resolvers: accountsResolvers },
  { typeDefs: timeTypeDefs, resolvers: timeResolvers },
];

/** One schema for GraphQL over HTTP and over graphql-ws. */
export function createSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: [rootTypeDefs, ...modules.map((module) => module.typeDefs)],
    resolvers: modules.map((module) => withAppErrors(module.resolvers)),
  });
}
