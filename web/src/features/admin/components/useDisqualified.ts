import { useQuery } from '@apollo/client';
import { TournamentStatisticsDocument } from '../../../gql/operations';

/** A disqualified participant as the statistics name them (issue 28). */
export interface DisqualifiedParticipant {
  username: string;
  reason: string;
  /** The round at whose end they went out; null when disqualified after the game. */
  eliminatedInRound: number | null;
}

/** Who of a tournament's participants an administrator disqualified, from its statistics. */
export function useDisqualified(tournamentId: string): {
  list: DisqualifiedParticipant[];
  byUsername: Map<string, DisqualifiedParticipant>;
} {
  const { data } = useQuery(TournamentStatisticsDocument, {
    variables: { tournamentId },
    fetchPolicy: 'cache-and-network',
  });
  const list = (data?.tournamentStatistics.participants ?? [])
    .filter((participant) => participant.isDisqualified)
    .map((participant) => ({
      username: participant.username,
      reason: participant.disqualificationReason ?? '',
      eliminatedInRound: participant.eliminatedInRound ?? null,
    }));
  return { list, byUsername: new Map(list.map((entry) => [entry.username, entry])) };
}

/** The queries a disqualification changes: refetched once it is done. */
export const afterDisqualification = [
  'TournamentDetails',
  'TournamentStatistics',
  'TournamentFairPlay',
  'TournamentHistory',
];
