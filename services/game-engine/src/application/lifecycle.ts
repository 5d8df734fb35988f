import { randomUUID } from 'node:crypto';
import type { BusMessage } from '@underdog/bus';
import type { Clock, Logger } from '@underdog/kit';
import { TOTAL_ROUNDS } from '@underdog/rules';
import { timestampDate, type Tournament, type TournamentLifecycleEvent } from '@underdog/proto';
import type { LiveGames } from '../adapters/live-games';
import type { GameRunners } from './runners';

/**
 * Applies `tournament.lifecycle` to the live store: tournament facts, offline registrations, and
 * the game's creation at `live`. Idempotent: a redelivered event leaves the same state.
 */
export class LifecycleHandler {
  constructor(
    private readonly live: LiveGames,
    private readonly runners: GameRunners,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** A new game's vote slots K from its registered players (docs/adr/0012); 1 by default. */
    private readonly voteSlots: (players: number) => number = () => 1,
  ) {}

  /** One decoded event (the bus's `eventConsumer` decodes and skips what does not decode). */
  async handle(event: TournamentLifecycleEvent, message: BusMessage): Promise<void> {
    const tournamentId = event.tournamentId || message.key;
    const { kind } = event;
    switch (kind.case) {
      case 'created':
      case 'updated':
        if (kind.value.tournament) await this.live.recordTournament(facts(kind.value.tournament));
        return;
      case 'deleted':
        await this.live.forgetTournament(tournamentId);
        return;
      case 'live':
        if (kind.value.tournament) await this.live.recordTournament(facts(kind.value.tournament));
        await this.startGame(tournamentId);
        return;
      case 'offlineChoicesSaved': {
        const { userId, username, deviceId, choices } = kind.value;
        const picks = [...choices]
          .sort((a, b) => a.roundNumber - b.roundNumber)
          .map((choice) => choice.selectedImageId)
          .join('');
        const reply = await this.live.join(
          tournamentId,
          { userId, username, deviceId, now: this.clock.now().getTime() },
          picks,
        );
        this.logger.info({ tournamentId, userId, reply }, 'offline participant recorded');
        return;
      }
      case 'finished':
      case undefined:
        return;
    }
  }

  private async startGame(tournamentId: string): Promise<void> {
    const before = await this.live.state(tournamentId);
    const { created, gameId } = await this.live.createGame(
      tournamentId,
      randomUUID(),
      this.clock.now().getTime(),
      TOTAL_ROUNDS,
      this.voteSlots(before?.participantCount ?? 0),
    );
    const state = await this.live.state(tournamentId);
    if (state?.phase === 'finished') return;
    await this.live.markActive(tournamentId);
    if (created) {
      this.logger.info({ tournamentId, gameId, voteSlots: state?.voteSlots }, 'game created');
    }
    await this.runners.ensureRunning(tournamentId);
  }
}

function facts(tournament: Tournament) {
  return {
    id: tournament.id,
    title: tournament.title,
    prize: tournament.prize,
    startAt: tournament.startAt ? timestampDate(tournament.startAt) : new Date(0),
    roundTimeSeconds: tournament.roundTimeSeconds || 15,
  };
}
