import { disqualifyParticipant } from '../../disqualification';
import type { Resolvers } from '../context';

export const disqualificationResolvers: Resolvers = {
  Mutation: {
    disqualifyParticipant: (
      _parent,
      args: { tournamentId: string; userId: string; reason: string },
      { clients, origin },
    ) =>
      disqualifyParticipant(
        clients,
        origin,
        { tournamentId: args.tournamentId, userId: args.userId },
        { reason: args.reason },
      ),
  },
};
