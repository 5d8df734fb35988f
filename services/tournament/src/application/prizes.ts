import { requireAdmin, type Clock } from '@underdog/kit';
import type { Actor } from '@underdog/proto';
import type { PrizeRepository, StoredPrize } from '../adapters/prize-repository';
import { tournamentErrors } from '../domain/errors';
import type { Tournaments } from './tournaments';

/** A confirmed payment; `alreadyConfirmed` when an earlier confirmation is the answer. */
export interface PrizeConfirmation {
  prize: StoredPrize;
  alreadyConfirmed: boolean;
}

/**
 * Prize payments (issue 28 §4): a finished game's winner is kept from `game.events` (`GameEnded`,
 * and a disqualification after the game that re-decided it); an administrator confirms the prize
 * paid once, and the history shows who confirmed it and when.
 */
export class Prizes {
  constructor(
    private readonly deps: {
      repository: PrizeRepository;
      tournaments: Tournaments;
      clock: Clock;
    },
  ) {}

  /** `GameEnded`: idempotent (the first end recorded stands). */
  async gameEnded(
    tournamentId: string,
    end: { winnerUserId?: string; winnerUsername?: string; prize?: string; endedAt: Date },
  ): Promise<void> {
    await this.deps.repository.ended({
      id: tournamentId,
      winnerUserId: end.winnerUserId,
      winnerUsername: end.winnerUsername,
      prize: end.prize,
      endedAt: end.endedAt,
    });
  }

  /** A disqualification after the game re-decided the winner (empty: none). */
  async winnerRedecided(tournamentId: string, userId: string, username: string): Promise<void> {
    await this.deps.repository.winnerRedecided(tournamentId, { userId, username });
  }

  async confirmPaid(actor: Actor | undefined, tournamentId: string): Promise<PrizeConfirmation> {
    requireAdmin(actor);
    await this.deps.tournaments.get(tournamentId); // 404 TOURNAMENT_NOT_FOUND
    const paid = await this.deps.repository.markPaid(tournamentId, {
      at: this.deps.clock.now(),
      byUserId: actor?.userId ?? '',
      byUsername: actor?.username ?? '',
    });
    if (paid) return { prize: paid, alreadyConfirmed: false };
    const prize = await this.deps.repository.get(tournamentId);
    if (!prize) throw tournamentErrors.notFinished();
    if (prize.paidAt) return { prize, alreadyConfirmed: true };
    throw tournamentErrors.noWinner();
  }

  async paid(actor: Actor | undefined): Promise<StoredPrize[]> {
    requireAdmin(actor);
    return this.deps.repository.paid();
  }
}
