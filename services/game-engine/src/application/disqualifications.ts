import { commonErrors, requireAdmin, type Clock, type Logger } from '@underdog/kit';
import { disqualify } from '@underdog/live-game';
import type { Actor } from '@underdog/proto';
import type { LiveStore } from '@underdog/store';
import type { GameEventsPublisher } from '../adapters/game-events';
import type { LiveGames } from '../adapters/live-games';
import { REASON_MAX_LENGTH, redecideOutcome } from '../domain/disqualification';
import { gameErrors } from '../domain/errors';
import type { GameRecords } from '../persistence';

export interface DisqualificationAnswer {
  duringGame: boolean;
  /** During the game: the round at whose end the participant goes out; after it, 0. */
  effectiveRound: number;
  /** After the game: the winner once the outcome was re-decided (undefined: none). */
  winnerUsername: string | undefined;
}

/**
 * An administrator's disqualification of a participant (issue 28; docs/fairness.md). During the
 * game (or before it starts) a mark in the live store: the runner eliminates the participant when
 * it resolves the mark's round. After the game: the records, and the outcome re-decided.
 * Disqualifying twice answers the same as once.
 */
export class Disqualifications {
  constructor(
    private readonly deps: {
      live: LiveGames;
      store: LiveStore;
      records: GameRecords;
      events: Pick<GameEventsPublisher, 'publish'>;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  async disqualify(
    actor: Actor | undefined,
    request: { tournamentId: string; userId: string; reason: string },
  ): Promise<DisqualificationAnswer> {
    requireAdmin(actor);
    const reason = request.reason.trim();
    if (reason.length === 0 || reason.length > REASON_MAX_LENGTH) {
      throw commonErrors.invalid(
        `The reason must be 1 to ${REASON_MAX_LENGTH} characters (it is shown to the participant)`,
      );
    }
    const tournamentId = request.tournamentId.trim();
    const userId = request.userId.trim();
    if (tournamentId === '') throw gameErrors.tournamentNotFound();
    if (userId === '') throw gameErrors.notParticipant();
    const now = this.deps.clock.now().getTime();
    const state = await this.deps.live.state(tournamentId);
    if (state) {
      const reply = await disqualify(this.deps.store, tournamentId, {
        userId,
        reason,
        at: now,
        by: actor?.userId ?? '',
      });
      switch (reply.outcome) {
        case 'NEW':
        case 'ALREADY':
          if (reply.outcome === 'NEW') {
            this.deps.logger.info(
              { tournamentId, userId, effectiveRound: reply.mark.round, by: actor?.userId },
              'participant disqualified; out at the end of the round',
            );
          }
          return { duringGame: true, effectiveRound: reply.mark.round, winnerUsername: undefined };
        case 'NO_TOURNAMENT':
          throw gameErrors.tournamentNotFound();
        case 'NOT_PARTICIPANT':
          throw gameErrors.notParticipant();
        case 'ENDING':
          throw gameErrors.gameEnding();
        case 'FINISHED':
          break;
      }
    }
    return this.afterGame(
      tournamentId,
      userId,
      reason,
      actor?.userId ?? '',
      now,
      state !== undefined,
    );
  }

  /**
   * After the game: recorded, and the prize given to the first not disqualified in the order
   * fixed at the reveal (`redecideOutcome`; never a new draw, issue 37).
   */
  private async afterGame(
    tournamentId: string,
    userId: string,
    reason: string,
    by: string,
    now: number,
    known: boolean,
  ): Promise<DisqualificationAnswer> {
    const { records } = this.deps;
    let game = await records.finishedGame(tournamentId);
    if (!game) {
      // The live game says finished but its end is not recorded yet: a few seconds.
      if (known) throw gameErrors.gameEnding();
      throw gameErrors.tournamentNotFound();
    }
    const participant = game.participants.find((p) => p.userId === userId);
    if (!participant) throw gameErrors.notParticipant();
    if (participant.disqualificationReason === undefined) {
      await records.participantsDisqualified(game.gameId, [{ userId, reason }]);
      game = {
        ...game,
        participants: game.participants.map((p) =>
          p.userId === userId ? { ...p, disqualificationReason: reason } : p,
        ),
      };
    }
    // Always re-decided from the records (idempotent), so a call that failed half-way is
    // completed by the next one.
    const outcome = redecideOutcome(game);
    const names = new Map(game.participants.map((p) => [p.userId, p.username]));
    const winner = outcome.winnerUserId
      ? { userId: outcome.winnerUserId, username: names.get(outcome.winnerUserId) ?? '' }
      : undefined;
    if (outcome.changed) {
      await records.winnerRedecided({
        gameId: game.gameId,
        previousWinnerId: game.winnerUserId ?? '',
        lastRound: game.roundsPlayed,
        winner,
        order: outcome.order,
      });
      this.deps.logger.info(
        { tournamentId, gameId: game.gameId, userId, winner: winner?.userId, by },
        'winner disqualified after the game; the prize goes to the next eligible in the order',
      );
    }
    await this.deps.events.publish(
      { tournamentId, gameId: game.gameId, at: new Date(now) },
      {
        case: 'participantDisqualified',
        value: {
          userId,
          username: participant.username,
          reason: participant.disqualificationReason ?? reason,
          roundNumber: 0,
          afterGame: true,
          winnerUserId: winner?.userId ?? '',
        },
      },
      `after:${userId}`,
    );
    return { duringGame: false, effectiveRound: 0, winnerUsername: winner?.username };
  }
}
