import {
  createOutboxRelay,
  type EventBus,
  type OutboxRelay,
  type OutgoingMessage,
} from '@underdog/bus';
import type { Clock, Logger } from '@underdog/kit';
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

/** `OfflineChoicesSaved` for a saved registration: the registration is its own outbox marker. */
export interface OfflineChoicesPublication {
  kind: 'offlineChoicesSaved';
  saved: SavedRegistration;
  occurredAt: Date;
}

/** What the lifecycle outbox publishes: an event pending in a tournament, or offline choices. */
export type LifecyclePublication = PendingPublication | OfflineChoicesPublication;

export type LifecycleOutbox = OutboxRelay<LifecyclePublication>;

/** How often (real time) a replica looks for events left pending by a crash or a Kafka outage. */
const SWEEP_EVERY_MS = 1_000;
/** Pending items of each kind per sweep; more wait for the next one. */
const SWEEP_LIMIT = 100;

function offlineChoicesMessage({ saved, occurredAt }: OfflineChoicesPublication): OutgoingMessage {
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
  return encodeEvent(TournamentLifecycleEventSchema, event, {
    key: saved.tournamentId,
    id: `${saved.tournamentId}:offline:${saved.userId}`,
  });
}

function logContext(publication: LifecyclePublication): Record<string, unknown> {
  if (publication.kind === 'offlineChoicesSaved') {
    return { tournamentId: publication.saved.tournamentId, userId: publication.saved.userId };
  }
  const { kind, event, tournament } = publication;
  return { tournamentId: tournament.id, eventKind: kind, eventId: event.id };
}

export interface LifecycleOutboxOptions {
  bus: EventBus;
  repository: TournamentRepository;
  offline: OfflineRepository;
  clock: Clock;
  /** How old a pending item must be before the sweep publishes it again. */
  retryAfterMs: number;
  logger: Logger;
}

/**
 * `tournament.lifecycle` on the one outbox relay (`@underdog/bus` `createOutboxRelay`). Each
 * change writes its event into its tournament document in the same atomic update
 * (`pendingEvents.<kind>`); `publishNow` then publishes it and clears it (a deleted tournament
 * is purged). A saved offline registration is its own marker (`published: false`), published
 * as `OfflineChoicesSaved` (event id `<tournamentId>:offline:<userId>`) and marked published.
 * If the process dies (or Kafka refuses) in between, the item stays pending and the sweep
 * (every second) sends items older than `retryAfterMs` again, events oldest first, with the same
 * `event-id`, so delivery is at least once and consumers recognise a repeat.
 */
export function createLifecycleOutbox(options: LifecycleOutboxOptions): LifecycleOutbox {
  const { bus, repository, offline, clock, logger } = options;

  async function pending(): Promise<LifecyclePublication[]> {
    const before = new Date(clock.now().getTime() - options.retryAfterMs);
    const events = (
      await Promise.all(kinds.map((kind) => repository.pendingSince(kind, before, SWEEP_LIMIT)))
    )
      .flat()
      .sort((a, b) => a.event.occurredAt.getTime() - b.event.occurredAt.getTime());
    const registrations = await offline.unpublishedSince(before, SWEEP_LIMIT);
    return [
      ...events,
      ...registrations.map((saved): OfflineChoicesPublication => ({
        kind: 'offlineChoicesSaved',
        saved,
        occurredAt: before,
      })),
    ];
  }

  async function publish(publication: LifecyclePublication): Promise<void> {
    if (publication.kind === 'offlineChoicesSaved') {
      await bus.publish(topics.tournamentLifecycle.name, [offlineChoicesMessage(publication)]);
      return;
    }
    await bus.publish(topics.tournamentLifecycle.name, [lifecycleMessage(publication)]);
    logger.info(logContext(publication), 'lifecycle event published');
  }

  async function markDone(publication: LifecyclePublication): Promise<void> {
    switch (publication.kind) {
      case 'offlineChoicesSaved':
        return offline.markPublished(publication.saved.tournamentId, publication.saved.userId);
      case 'deleted':
        return repository.purge(publication.tournament.id);
      case 'created':
      case 'updated':
      case 'live':
      case 'finished':
        return repository.clearPending(
          publication.tournament.id,
          publication.kind,
          publication.event.id,
        );
    }
  }

  return createOutboxRelay({
    name: 'tournament-lifecycle-outbox',
    what: 'lifecycle event',
    intervalMs: SWEEP_EVERY_MS,
    pending,
    publish,
    markDone,
    logContext,
    logger,
  });
}
