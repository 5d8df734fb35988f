export const recordsTypeDefs = /* GraphQL */ `
  "A played game's winner as its records name it (the live game's GameWinner carries more)."
  type RecordedWinner {
    username: String!
  }

  type ParticipantBreakdown {
    total: Int!
    online: Int!
    offline: Int!
  }

  type ParticipantStanding {
    username: String!
    isEliminated: Boolean!
    "The round that eliminated the participant; null while still in"
    eliminatedInRound: Int
    isOfflinePlayer: Boolean!
    "Disqualified by an administrator (issue 28): out at a round boundary, or after the game"
    isDisqualified: Boolean!
    "The administrator's reason, when disqualified: shown to administrators and the participant themself only"
    disqualificationReason: String
  }

  """
  The game's draw as its records show it (docs/fairness.md): the commitment recorded as the game
  began, the seed once finished, and the prize's order fixed at the end.
  """
  type RecordedDraw {
    "Hex SHA-256 of the seed"
    commitment: String!
    "Null until the game is finished"
    seed: String
    "Usernames: a disqualification after the game gives the prize to the first not disqualified"
    order: [String!]!
  }

  "Spec §3 tournament statistics. Same fields as REST's statistics JSON."
  type TournamentStatistics {
    tournament: Tournament!
    "Rounds played so far (0 before the game)"
    totalRounds: Int!
    participantBreakdown: ParticipantBreakdown!
    "Null until the game ends with a winner"
    winner: RecordedWinner
    participantCount: Int!
    "In the order they joined"
    participants: [ParticipantStanding!]!
    "Participants disqualified by an administrator (during or after the game)"
    disqualifiedCount: Int!
    "Null while no game is recorded"
    draw: RecordedDraw
  }

  "A tournament as it was when its game started."
  type RecordedTournament {
    id: ID!
    title: String!
    prize: String
    "ISO 8601"
    startAt: String!
  }

  "Spec §3 tournament history item."
  type TournamentHistoryItem {
    tournament: RecordedTournament!
    "Null when the game ended without a winner"
    winner: RecordedWinner
    totalPlayers: Int!
    "Rounds played"
    totalRounds: Int!
    "ISO 8601"
    endedAt: String!
  }

  type RecordedImage {
    id: ID!
    alt: String!
  }

  type RecordedVote {
    username: String!
    imageId: String!
    "ISO 8601, the server's stamp"
    votedAt: String!
    isOfflinePlayer: Boolean!
  }

  type EliminatedPlayer {
    username: String!
    isOfflinePlayer: Boolean!
    "Set when the player went out by an administrator's disqualification, not by their vote"
    disqualificationReason: String
  }

  type RoundDetails {
    roundNumber: Int!
    images: [RecordedImage!]!
    "In the order they were cast"
    votes: [RecordedVote!]!
    eliminatedPlayers: [EliminatedPlayer!]!
  }

  "Spec §3 tournament detail."
  type TournamentDetails {
    tournament: Tournament!
    winner: RecordedWinner
    totalPlayers: Int!
    "Resolved rounds, in order"
    rounds: [RoundDetails!]!
    "Null while no game is recorded"
    draw: RecordedDraw
  }

  extend type Query {
    "Public. NOT_FOUND (TOURNAMENT_NOT_FOUND) when there is no such tournament."
    tournamentStatistics(tournamentId: ID!): TournamentStatistics!
    "Admin only: finished games, the most recently ended first."
    tournamentHistory: [TournamentHistoryItem!]!
    "Admin only."
    tournamentDetails(tournamentId: ID!): TournamentDetails!
  }
`;
