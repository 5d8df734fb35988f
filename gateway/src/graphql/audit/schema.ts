export const auditTypeDefs = /* GraphQL */ `
  "Who did an admin action (userId empty for an attempt refused to a visitor)."
  type AdminActor {
    userId: ID!
    username: String
  }

  "One administrator's action from the audit log (topic admin.actions). Same fields as REST's."
  type AdminAction {
    id: ID!
    "tournamentCreated, tournamentUpdated, tournamentDeleted, advertisementCreated, advertisementUpdated, advertisementDeleted, participantDisqualified, prizePaidConfirmed, attemptRefused (an admin operation refused as UNAUTHENTICATED or FORBIDDEN) or fairPlayReportRead"
    action: String!
    actor: AdminActor!
    "ISO 8601"
    occurredAt: String!
    tournamentId: ID
    advertisementId: ID
    targetUserId: ID
    "One line for people (English)"
    summary: String!
    requestId: String
    "The client address of the request; null when not recorded"
    clientAddress: String
  }

  type AdminActionsPage {
    "Newest first"
    actions: [AdminAction!]!
    "Pass as before for the next (older) page; null when there is none"
    nextBefore: String
  }

  "An administrator confirmed that a finished tournament's prize was paid."
  type PrizePayment {
    tournamentId: ID!
    winnerUserId: ID!
    winnerUsername: String
    prize: String
    "ISO 8601"
    paidAt: String!
    paidBy: AdminActor!
  }

  type PrizeConfirmation {
    payment: PrizePayment!
    "True when the prize had been confirmed before: payment is that first confirmation"
    alreadyConfirmed: Boolean!
  }

  extend type TournamentHistoryItem {
    "Admin only: who confirmed the prize paid and when; null while not confirmed"
    prizePayment: PrizePayment
  }

  extend type Query {
    "Admin only (FORBIDDEN otherwise): the audit log, newest first; limit 1..200 (default 50)"
    adminActions(limit: Int, before: String): AdminActionsPage!
  }

  extend type Mutation {
    "Admin only. A finished tournament with a winner (CONFLICT otherwise); idempotent; audited"
    confirmPrizePaid(tournamentId: ID!): PrizeConfirmation!
  }
`;
