export const adsTypeDefs = /* GraphQL */ `
  enum AdvertisementType {
    text
    image
    video
    html
  }

  enum DisplayPosition {
    between_rounds
    before_game
    after_game
  }

  "An ad shown in a game. Same fields as REST's advertisement JSON."
  type Advertisement {
    id: ID!
    title: String!
    type: AdvertisementType!
    "Text, a URL or markup, by type"
    content: String!
    displayPosition: DisplayPosition!
    "Inactive ads stay in the admin list but never run"
    isActive: Boolean!
    "Seconds, 1-60"
    duration: Int!
    "ISO 8601"
    createdAt: String
    "ISO 8601"
    updatedAt: String
  }

  input CreateAdvertisementInput {
    title: String!
    type: AdvertisementType!
    content: String!
    "Default between_rounds"
    displayPosition: DisplayPosition
    "1-60 seconds, default 5"
    duration: Int
    "Default true"
    isActive: Boolean
  }

  "Only the fields given change."
  input UpdateAdvertisementInput {
    title: String
    type: AdvertisementType
    content: String
    displayPosition: DisplayPosition
    duration: Int
    isActive: Boolean
  }

  extend type Query {
    "The active ads of one position, oldest first (the client shows the first)."
    advertisements(position: DisplayPosition = between_rounds): [Advertisement!]!
    "Admin only: every ad, active or not, newest first."
    adminAdvertisements: [Advertisement!]!
  }

  extend type Mutation {
    "Admin only."
    createAdvertisement(input: CreateAdvertisementInput!): Advertisement!
    "Admin only."
    updateAdvertisement(id: ID!, input: UpdateAdvertisementInput!): Advertisement!
    "Admin only. True once deleted."
    deleteAdvertisement(id: ID!): Boolean!
  }
`;
