export const timeTypeDefs = /* GraphQL */ `
  extend type Query {
    "The server clock, ISO 8601; clients compute their offset from it."
    serverTime: String!
  }
`;
