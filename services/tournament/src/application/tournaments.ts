import { randomUUID } from 'node:crypto';
import { requireAdmin, type Clock, type Logger } from '@underdog/kit';
import type { Actor } from '@underdog/proto';
import type { LifecycleOutbox } from '../adapters/lifecycle-outbox';
import type { OfflineRepository } from '../adapters/offline-repository';
import type { PendingEvent, TournamentRepository } from '../adapters/tournament-repository';
import { tournamentErrors } from '../domain/errors';
import {
  assertDeletable,
  compareForListing,
  fieldsForCreate,
  fieldsForUpdate,
  type ParsedDraft,
  type Tournament,
} from '../domain/tournament';

export interface TournamentsDependencies {
  repository: TournamentRepository;
  offline: OfflineRepository;
  outbox: LifecycleOutbox;
  clock: Clock;
  logger: Logger;
}

const newEvent = (occurredAt: Date): PendingEvent => ({ id: randomUUID(), occurredAt });

/** Tournaments: reading them, admin management, and the end of a game. */
export class Tournaments {
  constructor(private readonly deps: TournamentsDependencies) {}

  async list(): Promise<Tournament[]> {
    return (await this.deps.repository.findAll()).sort(compareForListing);
  }

  async get(id: string): Promise<Tournament> {
    const tournament = await this.deps.repository.findById(id);
    if (!tournament) throw tournamentErrors.notFound();
    return tournament;
  }

  async create(actor: Actor | undefined, draft: ParsedDraft): Promise<Tournament> {
    requireAdmin(actor);
    const now = this.deps.clock.now();
    const { description, prize, ...fields } = fieldsForCreate(draft, now);
    const tournament: Tournament = {
      id: randomUUID(),
      ...fields,
      ...(description === undefined ? {} : { description }),
      ...(prize === undefined ? {} : { prize }),
      status: 'upcoming',
      participantCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    const created = newEvent(now);
    await this.deps.repository.insert(tournament, created);
    await this.deps.outbox.publishNow({ kind: 'created', event: created, tournament });
    this.deps.logger.info({ tournamentId: tournament.id }, 'tournament created');
    return tournament;
  }

  async update(actor: Actor | undefined, id: string, draft: ParsedDraft): Promise<Tournament> {
    requireAdmin(actor);
    // The write is conditional on the status the edit was judged against. If the scheduler
    // started the tournament meanwhile, the edit is judged again under the live rules; status
    // only moves forward, so this loops at most twice more.
    for (;;) {
      const current = await this.get(id);
      const now = this.deps.clock.now();
      const fields = fieldsForUpdate(current, draft, now);
      const updated = newEvent(now);
      const tournament = await this.deps.repository.update(
        id,
        current.status,
        fields,
        now,
        updated,
      );
      if (tournament) {
        await this.deps.outbox.publishNow({ kind: 'updated', event: updated, tournament });
        this.deps.logger.info({ tournamentId: id }, 'tournament updated');
        return tournament;
      }
    }
  }

  async delete(actor: Actor | undefined, id: string): Promise<void> {
    requireAdmin(actor);
    for (;;) {
      const current = await this.get(id);
      assertDeletable(current);
      const now = this.deps.clock.now();
      const deleted = newEvent(now);
      const tournament = await this.deps.repository.markDeleted(id, now, deleted);
      if (tournament) {
        await this.deps.outbox.publishNow({ kind: 'deleted', event: deleted, tournament });
        await this.deps.offline.deleteForTournament(id);
        this.deps.logger.info({ tournamentId: id }, 'tournament deleted');
        return;
      }
    }
  }

  /**
   * The number of participants the game engine counts (offline registrants included), from a
   * live join or the game's start. Participants never leave, so only a larger count is kept: the
   * same count again, or an older one arriving late, changes nothing. Returns the updated
   * tournament, or null when nothing changed (not larger, or no such tournament).
   */
  async recordParticipantCount(id: string, count: number): Promise<Tournament | null> {
    const tournament = await this.deps.repository.setParticipantCount(
      id,
      count,
      this.deps.clock.now(),
    );
    if (tournament) {
      this.deps.logger.info({ tournamentId: id, participantCount: count }, 'participants counted');
    }
    return tournament;
  }

  /**
   * live → finished, when its game has ended (the `game.events` consumer drives this). Returns the
   * finished tournament, or null when it was not live (already finished, or never started), so
   * a repeated call changes nothing. The event id is deterministic, like the live one.
   */
  async markFinished(id: string): Promise<Tournament | null> {
    const now = this.deps.clock.now();
    const finished: PendingEvent = { id: `${id}:finished`, occurredAt: now };
    const tournament = await this.deps.repository.finishIfLive(id, now, finished);
    if (tournament) {
      await this.deps.outbox.publishNow({ kind: 'finished', event: finished, tournament });
      this.deps.logger.info({ tournamentId: id }, 'tournament finished');
    }
    return tournament;
  }
}
