export const gameTypeDefs = /* GraphQL */ `
  # LiveGame, PlayerState and their parts are shared with the subscriptions (graphql/live).

  "A vote acknowledged: it is recorded and will be counted exactly once."
  type VoteReceipt {
    tournamentId: ID!
    roundNumber: Int!
    imageId: ID!
  }

  extend type Query {
    "The tournament's live game (NOT_FOUND / TOURNAMENT_NOT_FOUND when unknown)."
    liveGame(tournamentId: ID!): LiveGame!
  }

  extend type Mutation {
    """
    Verified users, while the tournament is upcoming or live before round 1's voting ends.
    Refusals: EMAIL_NOT_VERIFIED, JOIN_CLOSED, DEVICE_IN_USE, TOURNAMENT_NOT_FOUND. Joining twice is fine.
    """
    joinTournament(tournamentId: ID!): PlayerState!
    """
    One vote per round, for one of the current round's images, before the deadline. A first vote
    in round 1 joins. Refusals (extensions.code): EMAIL_NOT_VERIFIED, NOT_PARTICIPANT, ELIMINATED,
    ALREADY_VOTED, WRONG_ROUND, VOTING_CLOSED, NO_LIVE_GAME, INVALID_IMAGE, DEVICE_IN_USE,
    JOIN_CLOSED, VOTE_NOT_RECORDED (retryable: not recorded, e.g. during a broker or Redis
    failover; send it again). A receipt means the vote counts; a refusal means it does not. The
    same vote sent again (same round and image: a resend after a lost answer) is answered as the
    first: a receipt if the first counts, even after the deadline; another image is ALREADY_VOTED.
    """
    castVote(tournamentId: ID!, roundNumber: Int!, imageId: ID!): VoteReceipt!
  }
`;
