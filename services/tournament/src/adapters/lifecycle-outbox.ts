import type { EventBus, OutgoingMessage } from '@underdog/bus';
import type { Logger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  TournamentLifecycleEventSchema,
  create,
  encodeEvent,
  timestampFromDate,
  type MessageInitShape,
} from '@underdog/proto';
import type { LifecycleKind } from '../domain/tournament';
import { toProtoTournament } from '../mapping';
import type { OfflineRepository, SavedRegistration } from './offline-repository';
import type { PendingPublication, TournamentRepository } from './tournament-repository';

/** In lifecycle order, which breaks ties between events of the same millisecond. */
const kinds: readonly LifecycleKind[] = ['created', 'live', 'updated', 'finished', 'deleted'];

type EventKind = MessageInitShape<typeof TournamentLifecycleEventSchema>['kind'];

function eventKind({ kind, tournament }: PendingPublication): EventKind {
  const snapshot = { tournament: toProtoTournament(tournament) };
  switch (kind) {
    case 'created':
      return { case: 'created', value: snapshot };
    case 'updated':
      return { case: 'updated', value: snapshot };
    case 'deleted':
      return { case: 'deleted', value: {} };
    case 'live':
      return { case: 'live', value: snapshot };
    case 'finished':
      return { case: 'finished', value: snapshot };
  }
}

export function lifecycleMessage(publication: PendingPublication): OutgoingMessage {
  const event = create(TournamentLifecycleEventSchema, {
    tournamentId: publication.tournament.id,
    occurredAt: timestampFromDate(publication.event.occurredAt),
    kind: eventKind(publication),
  });
  return encodeEvent(TournamentLifecycleEventSchema, event, {
    key: publication.tournament.id,
    id: publication.event.id,
  });
}

/**
 * Publishes `tournament.lifecycle` events from the outbox kept in the tournament documents.
 * Each change writes its event into its document in the same atomic update; the event is then
 * published and cleared. If the process dies (or Kafka refuses) in between, the event stays
 * pending and `republishPending` sends it again later with the same `event-id`, so delivery is
 * at least once and consumers recognise a repeat.
 */
export class LifecycleOutbox {
  constructor(
    private readonly bus: EventBus,
    private readonly repository: TournamentRepository,
    private readonly logger: Logger,
    private readonly offline?: OfflineRepository,
  ) {}

  /**
   * `OfflineChoicesSaved` for a saved registration (event id `<tournamentId>:offline:<userId>`),
   * then the registration marked published; false leaves it for the sweep.
   */
  async publishOfflineChoices(saved: SavedRegistration, occurredAt: Date): Promise<boolean> {
    const context = { tournamentId: saved.tournamentId, userId: saved.userId };
    const event = create(TournamentLifecycleEventSchema, {
      tournamentId: saved.tournamentId,
      occurredAt: timestampFromDate(occurredAt),
      kind: {
        case: 'offlineChoicesSaved',
        value: {
          userId: saved.userId,
          username: saved.username,
          deviceId: saved.deviceId,
          choices: saved.choices.map(({ roundNumber, selectedImageId }) => ({
            roundNumber,
            selectedImageId,
          })),
        },
      },
    });
    try {
      await this.bus.publish(topics.tournamentLifecycle.name, [
        encodeEvent(TournamentLifecycleEventSchema, event, {
          key: saved.tournamentId,
          id: `${saved.tournamentId}:offline:${saved.userId}`,
        }),
      ]);
    } catch (error) {
      this.logger.warn(
        { ...context, err: error },
        'offline choices event not published; will retry',
      );
      return false;
    }
    await this.offline
      ?.markPublished(saved.tournamentId, saved.userId)
      .catch((error: unknown) =>
        this.logger.warn({ ...context, err: error }, 'published offline choices not marked'),
      );
    return true;
  }

  /** True once the bus has the event; false leaves it pending for the next sweep. */
  async publish(publication: PendingPublication): Promise<boolean> {
    const { kind, event, tournament } = publication;
    const context = { tournamentId: tournament.id, eventKind: kind, eventId: event.id };
    try {
      await this.bus.publish(topics.tournamentLifecycle.name, [lifecycleMessage(publication)]);
    } catch (error) {
      this.logger.warn({ ...context, err: error }, 'lifecycle event not published; will retry');
      return false;
    }
    try {
      if (kind === 'deleted') await this.repository.purge(tournament.id);
      else await this.repository.clearPending(tournament.id, kind, event.id);
    } catch (error) {
      // Still marked pending: the sweep publishes it once more, with the same event id.
      this.logger.warn({ ...context, err: error }, 'published lifecycle event not cleared');
    }
    this.logger.info(context, 'lifecycle event published');
    return true;
  }

  /** Publishes, oldest first, every event still pending since before `before`. */
  async republishPending(before: Date, limit = 100): Promise<number> {
    const pending = (
      await Promise.all(kinds.map((kind) => this.repository.pendingSince(kind, before, limit)))
    )
      .flat()
      .sort((a, b) => a.event.occurredAt.getTime() - b.event.occurredAt.getTime());
    let published = 0;
    for (const publication of pending) {
      if (await this.publish(publication)) published += 1;
    }
    const registrations = (await this.offline?.unpublishedSince(before, limit)) ?? [];
    for (const registration of registrations) {
      if (await this.publishOfflineChoices(registration, before)) published += 1;
    }
    if (pending.length > 0) {
      this.logger.warn(
        { pending: pending.length, published },
        'republished pending lifecycle events',
      );
    }
    return published;
  }
}
