import {
  TournamentStatus as ProtoTournamentStatus,
  timestampDate,
  timestampFromDate,
  type MessageInitShape,
  type OfflineChoice as ProtoOfflineChoice,
  type OfflineChoiceSchema,
  type FairPlayReportSchema,
  type Timestamp,
  type TournamentSchema,
} from '@underdog/proto';
import type { FairPlayReport } from './domain/fair-play-report';
import type { OfflineChoice } from './domain/offline';
import type { Tournament, TournamentDraft, TournamentStatus } from './domain/tournament';

/** Domain ↔ proto, in one place: the RPC handlers and the lifecycle events both use it. */

const protoStatus: Record<TournamentStatus, ProtoTournamentStatus> = {
  upcoming: ProtoTournamentStatus.UPCOMING,
  live: ProtoTournamentStatus.LIVE,
  finished: ProtoTournamentStatus.FINISHED,
};

export function toProtoTournament(
  tournament: Tournament,
): MessageInitShape<typeof TournamentSchema> {
  return {
    id: tournament.id,
    title: tournament.title,
    ...(tournament.description === undefined ? {} : { description: tournament.description }),
    ...(tournament.prize === undefined ? {} : { prize: tournament.prize }),
    status: protoStatus[tournament.status],
    startAt: timestampFromDate(tournament.startAt),
    participantCount: tournament.participantCount,
    roundTimeSeconds: tournament.roundTimeSeconds,
  };
}

/** An unset timestamp is a missing start time, reported by validation. */
function dateOf(timestamp: Timestamp | undefined): Date | undefined {
  return timestamp === undefined ? undefined : timestampDate(timestamp);
}

export function draftOf(request: {
  title: string;
  description?: string | undefined;
  prize?: string | undefined;
  startAt?: Timestamp | undefined;
  roundTimeSeconds?: number | undefined;
}): TournamentDraft {
  return {
    title: request.title,
    description: request.description,
    prize: request.prize,
    startAt: dateOf(request.startAt),
    roundTimeSeconds: request.roundTimeSeconds,
  };
}

export function offlineChoicesOf(choices: readonly ProtoOfflineChoice[]): OfflineChoice[] {
  return choices.map(({ roundNumber, selectedImageId }) => ({ roundNumber, selectedImageId }));
}

export function toProtoOfflineChoices(
  choices: readonly OfflineChoice[],
): MessageInitShape<typeof OfflineChoiceSchema>[] {
  return choices.map(({ roundNumber, selectedImageId }) => ({ roundNumber, selectedImageId }));
}

/** The fair-play report as its RPC answer. */
export function toProtoFairPlayReport(
  report: FairPlayReport,
): MessageInitShape<typeof FairPlayReportSchema> {
  return {
    tournamentId: report.tournamentId,
    final: report.final,
    computedAt: timestampFromDate(report.computedAt),
    participantCount: report.participantCount,
    roundCount: report.roundCount,
    flaggedUserIds: report.flagged,
    usernames: report.usernames,
    clusters: report.clusters.map((cluster) => ({
      memberUserIds: cluster.members,
      flaggedUserIds: cluster.flaggedMembers,
      score: cluster.score,
      flagged: cluster.flagged,
      identitySurprise: cluster.identitySurprise,
      playSurprise: cluster.playSurprise,
      evidence: cluster.evidence.map((evidence) => ({
        kind: evidence.kind,
        text: evidence.text,
        memberUserIds: evidence.members,
        surprise: evidence.surprise,
        roundNumber: evidence.roundNumber ?? 0,
      })),
    })),
  };
}
