export const fairPlayTypeDefs = /* GraphQL */ `
  "A participant named by the fair-play report."
  type FairPlayMember {
    userId: ID!
    "As their votes carried it; null for someone who never voted"
    username: String
  }

  "One piece of evidence: a link (surprise 0) or behaviour, with the text for the admin's screen."
  type FairPlayEvidence {
    "sharedDevice, sharedAddressPrefix, sharedUserAgent, registrationBurst, simultaneousVotes or coveringVotes"
    kind: String!
    text: String!
    members: [FairPlayMember!]!
    "-log10 of its p-value under independent play"
    surprise: Float!
    "Null when not about one round"
    roundNumber: Int
  }

  "Accounts linked by a shared device or address prefix (docs/fairness.md)."
  type FairPlayCluster {
    members: [FairPlayMember!]!
    flaggedMembers: [FairPlayMember!]!
    "In [0, 1]; flagged at 0.5"
    score: Float!
    flagged: Boolean!
    identitySurprise: Float!
    playSurprise: Float!
    evidence: [FairPlayEvidence!]!
  }

  "Fair play: rings of accounts in one tournament. Same fields as REST's fair-play JSON."
  type FairPlayReport {
    tournamentId: ID!
    "The tournament is finished: the report will not change"
    final: Boolean!
    "ISO 8601"
    computedAt: String!
    participantCount: Int!
    roundCount: Int!
    flagged: [FairPlayMember!]!
    "Highest score first"
    clusters: [FairPlayCluster!]!
  }

  extend type TournamentHistoryItem {
    "Admin only: the winner is a flagged member of the tournament's fair-play report; null when the report cannot be read"
    winnerFlagged: Boolean
  }

  extend type Query {
    "Admin only (FORBIDDEN otherwise). NOT_FOUND for an unknown tournament."
    tournamentFairPlay(tournamentId: ID!): FairPlayReport!
  }
`;
