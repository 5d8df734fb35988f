import { RingDetector, type Signal } from '@underdog/fair-play';
import { requireAdmin, type Clock } from '@underdog/kit';
import type { Actor } from '@underdog/proto';
import {
  ACCOUNT_SCOPE,
  type FairPlayRepository,
  type FairPlayRow,
  type StoredSignal,
} from '../adapters/fair-play-repository';
import type { FairPlayReport } from '../domain/fair-play-report';
import type { Tournaments } from './tournaments';

/** Final reports kept in memory (they never change): the history's winner flags cost nothing. */
const finalReportsKept = 200;

/**
 * Keeps what the report needs (signals from `fair-play.signals` and `game.votes`, each round's
 * images from `game.events`) and computes the report when an admin asks: recomputed on read from
 * the stored rows, so it is live during the game and final at its end without any state to keep
 * in step. Cost per read: one query for the tournament's rows and one for its participants'
 * account rows (S rows, about participants × (2 + rounds played)), then `detectRings`
 * (packages/fair-play README, "Cost": about 0.4 s for 1,000 players over 17 rounds, far less for a
 * smaller game). Only admins read it, on demand; nothing runs per vote. A final report never
 * changes, so the last 200 are kept in memory per replica.
 */
export class FairPlay {
  private readonly finalReports = new Map<string, FairPlayReport>();

  constructor(
    private readonly deps: {
      repository: FairPlayRepository;
      tournaments: Tournaments;
      clock: Clock;
    },
  ) {}

  async record(id: string, signal: StoredSignal): Promise<void> {
    await this.deps.repository.record(id, signal);
  }

  /** A consumed batch's rows, one write (idempotent on each row's id). */
  async recordAll(rows: readonly FairPlayRow[]): Promise<void> {
    await this.deps.repository.recordAll(rows);
  }

  /** The tournament's signals are gone (retention): its kept final report goes too. */
  forget(tournamentId: string): void {
    this.finalReports.delete(tournamentId);
  }

  async roundStarted(tournamentId: string, roundNumber: number, imageIds: string[]): Promise<void> {
    await this.deps.repository.roundStarted({ tournamentId, roundNumber, imageIds });
  }

  async report(actor: Actor | undefined, tournamentId: string): Promise<FairPlayReport> {
    requireAdmin(actor);
    const kept = this.finalReports.get(tournamentId);
    if (kept) return kept;
    const tournament = await this.deps.tournaments.get(tournamentId); // 404 for an unknown id
    const [signals, rounds] = await Promise.all([
      this.deps.repository.signalsOf(tournamentId),
      this.deps.repository.roundsOf(tournamentId),
    ]);
    const detector = new RingDetector();
    for (const round of rounds) detector.roundStarted(round.roundNumber, round.imageIds);
    const participants = new Set<string>();
    const votedRounds = new Set<number>();
    const usernames: Record<string, string> = {};
    for (const stored of signals) {
      if (stored.username) usernames[stored.userId] = stored.username;
      const signal = toSignal(stored);
      if (signal === undefined) continue;
      if (stored.tournamentId !== ACCOUNT_SCOPE) participants.add(stored.userId);
      if (signal.kind === 'voted') votedRounds.add(signal.roundNumber);
      detector.record(signal);
    }
    const report: FairPlayReport = {
      tournamentId,
      final: tournament.status === 'finished',
      computedAt: this.deps.clock.now(),
      participantCount: participants.size,
      roundCount: votedRounds.size,
      usernames,
      ...detector.report(),
    };
    if (report.final) {
      // A vote redelivered after the end is already counted (one row per vote id).
      if (this.finalReports.size >= finalReportsKept) {
        this.finalReports.delete(this.finalReports.keys().next().value!);
      }
      this.finalReports.set(tournamentId, report);
    }
    return report;
  }
}

/** A stored row as the detector's signal; a vote row without its round is skipped. */
export function toSignal(stored: StoredSignal): Signal | undefined {
  const base = {
    userId: stored.userId,
    at: stored.at.getTime(),
    ...(stored.deviceId ? { deviceId: stored.deviceId } : {}),
    ...(stored.addressPrefix ? { addressPrefix: stored.addressPrefix } : {}),
    ...(stored.userAgent ? { userAgent: stored.userAgent } : {}),
  };
  switch (stored.kind) {
    case 'registered':
    case 'loggedIn':
    case 'joined':
      return { ...base, kind: stored.kind };
    case 'seen':
      // A vote signal of a gateway before issue 36: where the vote came from (its timing is
      // game.votes'). Newer votes carry it on their own `voted` row.
      return { ...base, kind: 'joined' };
    case 'voted':
      if (!stored.roundNumber || !stored.imageId) return undefined;
      return { ...base, kind: 'voted', roundNumber: stored.roundNumber, imageId: stored.imageId };
    default:
      return undefined;
  }
}
