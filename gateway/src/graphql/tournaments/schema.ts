export const tournamentsTypeDefs = /* GraphQL */ `
  enum TournamentStatus {
    upcoming
    live
    finished
  }

  "A scheduled tournament of 17 rounds. Same fields as REST's tournament JSON."
  type Tournament {
    id: ID!
    title: String!
    description: String
    status: TournamentStatus!
    "ISO 8601"
    startAt: String!
    "Free text as the admin typed it, e.g. \\"$5,000\\""
    prize: String
    participantCount: Int!
    "Voting time per round, 5-120 seconds"
    roundTimeSeconds: Int!
  }

  "One pre-registered pick."
  type OfflineChoice {
    "1-17"
    roundNumber: Int!
    "The zero-based option position, \\"0\\" to \\"3\\""
    selectedImageId: String!
  }

  input OfflineChoiceInput {
    roundNumber: Int!
    selectedImageId: String!
  }

  "Create and edit. An edit may send the stored start unchanged even when it has passed."
  input TournamentInput {
    title: String!
    description: String
    prize: String
    "ISO 8601 with a time zone; must be in the future unless unchanged on edit"
    startAt: String!
    "5-120; absent: 15 on create, unchanged on edit"
    roundTimeSeconds: Int
  }

  type SaveOfflineChoicesPayload {
    message: String!
    choices: [OfflineChoice!]!
    "The tournament, with the saver counted among its participants"
    tournament: Tournament!
  }

  extend type Query {
    "Every tournament: live first, then upcoming soonest first, then finished latest first."
    tournaments: [Tournament!]!
    "NOT_FOUND (TOURNAMENT_NOT_FOUND) when there is no such tournament."
    tournament(id: ID!): Tournament
    "The signed-in user's pre-registered choices, by round (empty when none)."
    offlineChoices(tournamentId: ID!): [OfflineChoice!]!
    "Whether the signed-in user pre-registered; false for a visitor."
    hasOfflineChoices(tournamentId: ID!): Boolean!
  }

  extend type Mutation {
    "Admin only."
    createTournament(input: TournamentInput!): Tournament!
    "Admin only."
    updateTournament(id: ID!, input: TournamentInput!): Tournament!
    "Admin only; never a live tournament. True once deleted."
    deleteTournament(id: ID!): Boolean!
    "Verified users, while the offline window is open: all 17 rounds, once per tournament."
    saveOfflineChoices(
      tournamentId: ID!
      choices: [OfflineChoiceInput!]!
    ): SaveOfflineChoicesPayload!
  }
`;
