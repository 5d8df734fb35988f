import { AuditReads } from '../../audit';
import type { TournamentHistoryItemView } from '../../records';
import type { Resolvers } from '../context';

export const auditResolvers: Resolvers = {
  Query: {
    adminActions: (
      _parent,
      args: { limit?: number | null; before?: string | null },
      { clients, origin },
    ) =>
      new AuditReads(clients).list(origin, {
        limit: args.limit ?? undefined,
        before: args.before ?? undefined,
      }),
  },
  Mutation: {
    confirmPrizePaid: (_parent, args: { tournamentId: string }, { clients, origin }) =>
      new AuditReads(clients).confirmPrizePaid(origin, args.tournamentId),
  },
  TournamentHistoryItem: {
    // One listing of payments per request, shared by the rows.
    prizePayment: (parent, _args, { clients, origin }) =>
      new AuditReads(clients).paymentOf(
        origin,
        (parent as TournamentHistoryItemView).tournament.id,
      ),
  },
};
