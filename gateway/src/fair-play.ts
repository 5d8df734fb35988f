import {
  timestampDate,
  type Actor,
  type FairPlayCluster,
  type FairPlayReport,
} from '@underdog/proto';
import { actorOf, delegate } from './actors';
import { adminAuditOf } from './admin-actions';
import type { GatewayClients } from './clients';
import type { RequestOrigin } from './session';

/** A participant named by the report: the username as their votes carried it, when known. */
export interface FairPlayMemberView {
  userId: string;
  username: string | null;
}

export interface FairPlayEvidenceView {
  /** sharedDevice, sharedAddressPrefix, sharedUserAgent, registrationBurst, simultaneousVotes, coveringVotes. */
  kind: string;
  /** For the admin's screen, as is (English). */
  text: string;
  members: FairPlayMemberView[];
  /** −log10 of its p-value; 0 for links. */
  surprise: number;
  roundNumber: number | null;
}

export interface FairPlayClusterView {
  members: FairPlayMemberView[];
  flaggedMembers: FairPlayMemberView[];
  /** In [0, 1]; flagged at 0.5. */
  score: number;
  flagged: boolean;
  identitySurprise: number;
  playSurprise: number;
  evidence: FairPlayEvidenceView[];
}

/** `GET /api/admin/tournaments/{id}/fair-play` and GraphQL `tournamentFairPlay` (docs/api-rest.md). */
export interface FairPlayReportView {
  tournamentId: string;
  /** The tournament is finished: the report will not change. */
  final: boolean;
  /** ISO 8601. */
  computedAt: string;
  participantCount: number;
  roundCount: number;
  flagged: FairPlayMemberView[];
  clusters: FairPlayClusterView[];
}

/**
 * The fair-play report (issue 28) behind both edges: admin only, 403 / FORBIDDEN otherwise. Each
 * read of the report is in the audit log (`fairPlayReportRead`, issue 37), a refused one too
 * (the audited clients); the history's one-bit "winner flagged" mark is not a read of it.
 */
export class FairPlayReads {
  constructor(private readonly clients: Pick<GatewayClients, 'tournament'>) {}

  async report(origin: RequestOrigin, tournamentId: string): Promise<FairPlayReportView> {
    const actor = await actorOf(origin);
    const report = await this.fetch(actor, tournamentId);
    await adminAuditOf(this.clients.tournament)?.fairPlayReportRead(actor, tournamentId);
    return report;
  }

  /** Whether the winner named by `username` is a flagged member of the tournament's report. */
  async isFlagged(origin: RequestOrigin, tournamentId: string, username: string): Promise<boolean> {
    const report = await this.fetch(await actorOf(origin), tournamentId);
    return report.flagged.some((member) => member.username === username);
  }

  private async fetch(actor: Actor, tournamentId: string): Promise<FairPlayReportView> {
    const { report } = await delegate(
      this.clients.tournament.getFairPlayReport({ actor, tournamentId }),
    );
    if (!report) throw new Error('the tournament service returned no fair-play report');
    return toFairPlayReportView(report);
  }
}

export function toFairPlayReportView(report: FairPlayReport): FairPlayReportView {
  const member = (userId: string): FairPlayMemberView => ({
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
    clusters: report.clusters.map((cluster: FairPlayCluster) => ({
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
