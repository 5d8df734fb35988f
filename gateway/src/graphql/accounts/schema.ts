export const accountsTypeDefs = /* GraphQL */ `
  enum Role {
    user
    admin
  }

  "A player's account, with the statistics kept from game outcomes. Same fields as REST's user JSON."
  type User {
    id: ID!
    username: String!
    email: String!
    displayName: String!
    role: Role!
    isEmailVerified: Boolean!
    "ISO 8601"
    createdAt: String
    gamesPlayed: Int!
    wins: Int!
    totalPrizes: Float!
    roundsWon: Int!
    totalRoundsPlayed: Int!
    longestWinStreak: Int!
    currentWinStreak: Int!
    biggestTournamentSize: Int!
    "ISO 8601; null before the first win"
    firstWinDate: String
  }

  input RegisterInput {
    email: String!
    displayName: String!
    password: String!
  }

  type RegisterPayload {
    "What to tell the user (e.g. to check their inbox)."
    message: String!
    user: User!
  }

  extend type Query {
    "The signed-in user; null for a visitor."
    me: User
  }

  extend type Mutation {
    "Creates an unverified account, e-mails the code and signs in (sets the session cookie)."
    register(input: RegisterInput!): RegisterPayload!
    "Signs in (sets a new session cookie; the previous session ends)."
    login(email: String!, password: String!): User!
    "Ends the session and clears the cookie; true even without one."
    logout: Boolean!
    """
    Verifies with the 6-digit code (the session's user, else email's) or with the link token.
    Null after a right code sent with an e-mail and no session of that account: the user is
    returned only to its own session (and to the link's holder).
    """
    verifyEmail(code: String, email: String, token: String): User
    "Sends a new code; answers with the message to show."
    resendVerification(email: String!): String!
    updateProfile(displayName: String!): User!
    "Ends every other session and rotates this one (sets the cookie); answers with a message."
    changePassword(currentPassword: String!, newPassword: String!): String!
  }
`;
