export const disqualificationTypeDefs = /* GraphQL */ `
  "What an administrator's disqualification did. Same fields as REST's disqualify JSON."
  type Disqualification {
    tournamentId: ID!
    userId: ID!
    "As stored (trimmed); shown to the participant"
    reason: String!
    "The game was running: the participant goes out at the end of effectiveRound"
    duringGame: Boolean!
    "During the game: the round at whose end the participant goes out; null after the game"
    effectiveRound: Int
    "After the game: the winner once the outcome was re-decided (docs/fairness.md); null: none, or during the game"
    winner: RecordedWinner
  }

  extend type Mutation {
    """
    Admin only (UNAUTHENTICATED for a visitor, FORBIDDEN otherwise). The reason: 1 to 500
    characters after trimming (BAD_REQUEST). NOT_FOUND for an unknown tournament or participant.
    Disqualifying someone twice repeats the first effect.
    """
    disqualifyParticipant(tournamentId: ID!, userId: ID!, reason: String!): Disqualification!
  }
`;
