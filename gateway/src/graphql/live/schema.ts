import { gameEventTypeDefs } from '../../realtime/game-event-derived';

/**
 * The live game over graphql-ws: the tournament list's changes and one tournament's game events,
 * the same information as the `/ws` messages (docs/api-ws.md). The game's shared types
 * (GamePhase, RoundImage, ImageResult, GameWinner, PlayerState, LiveGame) live here too. The
 * types implementing `GameEvent` (but `GameSnapshot`) are printed from their one description each,
 * in gateway/src/realtime/game-events.ts.
 */
export const liveTypeDefs = /* GraphQL */ `
  "Live game phase (product spec §4)."
  enum GamePhase {
    waiting
    voting
    voting_ended
    advertisement
    results
    finished
  }

  "One of a round's four options."
  type RoundImage {
    "round-N-image-M"
    id: ID!
    url: String!
    alt: String!
  }

  "One image's count once a round is resolved."
  type ImageResult {
    imageId: ID!
    votes: Int!
    "Whole percent of the round's votes (0 when nobody voted)"
    percentage: Int!
    isWinner: Boolean!
  }

  type GameWinner {
    userId: ID!
    username: String!
    displayName: String!
    prize: String
  }

  "The signed-in caller's place in a game."
  type PlayerState {
    isParticipant: Boolean!
    isEliminated: Boolean!
    "0 while still in"
    eliminatedInRound: Int!
    isOfflinePlayer: Boolean!
    "The caller's vote in the current round, when cast"
    voteImageId: ID
    "Set once an administrator disqualified the caller: they go out at the end of the round it was decided in"
    disqualificationReason: String
  }

  "The state of a tournament's game, as a client starts from it."
  type LiveGame {
    tournamentId: ID!
    "Empty while no game exists (the tournament is upcoming)"
    gameId: ID!
    phase: GamePhase!
    "0 before round 1"
    roundNumber: Int!
    totalRounds: Int!
    roundTimeSeconds: Int!
    "The current round's images (empty before round 1)"
    images: [RoundImage!]!
    "ISO 8601 deadline of the current phase; null in waiting and finished"
    phaseEndsAt: String
    "ISO 8601, when this state was read"
    serverTime: String!
    "Whole seconds until phaseEndsAt (rounded up)"
    timeRemaining: Int!
    "Votes cast in the current round: the only count shown while voting is open"
    totalVotes: Int!
    participantCount: Int!
    offlineParticipantCount: Int!
    remainingCount: Int!
    "The last resolved round's counts (empty while voting is open)"
    results: [ImageResult!]!
    "The running ad, in the advertisement phase"
    advertisement: Advertisement
    "Once finished with a winner"
    winner: GameWinner
    "Null for a visitor"
    player: PlayerState
    """
    SHA-256 (hex) of the seed of the game's final draw, public from the game's start (before
    round 1's voting opens) and never changed; the seed is revealed at the end and checked
    against it (docs/fairness.md). Empty before the game begins.
    """
    drawCommitment: String!
  }

  "Something that happened in a tournament's game; events of one tournament arrive in order."
  interface GameEvent {
    tournamentId: ID!
    "Empty before the game exists"
    gameId: ID!
    "ISO 8601"
    occurredAt: String!
  }

  "The first event of every gameEvents subscription: the state to start from."
  type GameSnapshot implements GameEvent {
    tournamentId: ID!
    gameId: ID!
    occurredAt: String!
    game: LiveGame!
  }

  ${gameEventTypeDefs()}
  enum TournamentChangeKind {
    created
    updated
    deleted
    live
    finished
  }

  "A change of the tournament list, with the list after it."
  type TournamentsChange {
    kind: TournamentChangeKind!
    tournamentId: ID!
    "The tournament after the change; null once deleted"
    tournament: Tournament
    "Every tournament, in the order of Query.tournaments"
    tournaments: [Tournament!]!
  }

  type Subscription {
    """
    The tournament list's changes (created, updated, deleted, live, finished). With
    tournamentId, only that tournament's changes: a game's page learns its own tournament's
    news without every other tournament's change and list.
    """
    tournamentsChanged(tournamentId: ID): TournamentsChange!
    "One tournament's game: first a GameSnapshot, then every event as it happens."
    gameEvents(tournamentId: ID!): GameEvent!
  }
`;
