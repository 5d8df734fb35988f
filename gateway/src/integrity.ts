import {
  timestampDate,
  type Actor,
  type IntegrityCluster,
  type IntegrityReport,
} from '@underdog/proto';
import { actorOf, delegate } from './actors';
import { adminAuditOf } from './admin-actions';
import type { GatewayClients } from './clients';
import type { RequestOrigin } from './session';

/** A participant named by the report: the username as their votes carried it, when known. */
export interface IntegrityMemberView {
  userId: string;
  username: string | null;
}

export interface IntegrityEvidenceView {
  /** sharedDevice, sharedAddressPrefix, sharedUserAgent, registrationBurst, simultaneousVotes, coveringVotes. */
  kind: string;
  /** For the admin's screen, as is (English). */
  text: string;
  members: IntegrityMemberView[];
  /** −log10 of its p-value; 0 for links. */
  surprise: number;
  roundNumber: number | null;
}

export interface IntegrityClusterView {
  members: IntegrityMemberView[];
  flaggedMembers: IntegrityMemberView[];
  /** In [0, 1]; flagged at 0.5. */
  score: number;
  flagged: boolean;
  identitySurprise: number;
  playSurprise: number;
  evidence: IntegrityEvidenceView[];
}

/** `GET /api/admin/tournaments/{id}/integrity` and GraphQL `tournamentIntegrity` (docs/api-rest.md). */
export interface IntegrityReportView {
  tournamentId: string;
  /** The tournament is finished: the report will not change. */
  final: boolean;
  /** ISO 8601. */
  computedAt: string;
  participantCount: number;
  roundCount: number;
  flagged: IntegrityMemberView[];
  clusters: IntegrityClusterView[];
}

/**
 * The integrity report (issue 28) behind both edges: admin only, 403 / FORBIDDEN otherwise. Each
 * read of the report is in the audit log (`integrityReportRead`, issue 37), a refused one too
 * (the audited clients); the history's one-bit "winner flagged" mark is not a read of it.
 */
export class IntegrityReads {
  constructor(private readonly clients: Pick<GatewayClients, 'tournament'>) {}

  async report(origin: RequestOrigin, tournamentId: string): Promise<IntegrityReportView> {
    const actor = await actorOf(origin);
    const report = await this.fetch(actor, tournamentId);
    await adminAuditOf(this.clients.tournament)?.integrityReportRead(actor, tournamentId);
    return report;
  }

  /** Whether the winner named by `username` is a flagged member of the tournament's report. */
  async isFlagged(origin: RequestOrigin, tournamentId: string, username: string): Promise<boolean> {
    const report = await this.fetch(await actorOf(origin), tournamentId);
    return report.flagged.some((member) => member.username === username);
  }

  private async fetch(actor: Actor, tournamentId: string): Promise<IntegrityReportView> {
    const { report } = await delegate(
      this.clients.tournament.getIntegrityReport({ actor, tournamentId }),
    );
    if (!report) throw new Error('the tournament service returned no integrity report');
    return toIntegrityReportView(report);
  }
}

export function toIntegrityReportView(report: IntegrityReport): IntegrityReportView {
  const member = (userId: string): IntegrityMemberView => ({
    userId,
    username: report.usernames[userId] ?? null,
  });
  return {
    tournamentId: report.tournamentId,
    final: report.final,
    computedAt: (report.computedAt ? timestampDate(report.computedAt) : new Date()).toISOString(),
    participantCount: report.participantCount,
    roundCount: report.roundCount,
    flagged: report.flaggedUserIds.map(member),
    clusters: report.clusters.map((cluster: IntegrityCluster) => ({
      members: cluster.memberUserIds.map(member),
      flaggedMembers: cluster.flaggedUserIds.map(member),
      score: cluster.score,
      flagged: cluster.flagged,
      identitySurprise: cluster.identitySurprise,
      playSurprise: cluster.playSurprise,
      evidence: cluster.evidence.map((evidence) => ({
        kind: evidence.kind,
        text: evidence.text,
        members: evidence.memberUserIds.map(member),
        surprise: evidence.surprise,
        roundNumber: evidence.roundNumber === 0 ? null : evidence.roundNumber,
      })),
    })),
  };
}
