import type {
  Collection,
  CollectionDefinition,
  DocumentStore,
  Filter,
  Update,
} from '@underdog/documents';
import type {
  LifecycleKind,
  Tournament,
  TournamentFields,
  TournamentStatus,
} from '../domain/tournament';

/** A lifecycle event written together with the change it announces (the outbox). */
export interface PendingEvent {
  /** The `event-id` header; a republish carries the same one. */
  id: string;
  occurredAt: Date;
}

/** One slot per kind, so a newer edit never displaces an unpublished `live`. */
type PendingEvents = Partial<Record<LifecycleKind, PendingEvent>>;

interface TournamentDocument extends Tournament {
  /** Set by an admin's delete; the document goes once the deleted event is published. */
  deletedAt?: Date;
  /** Events of changes made to this document and not yet confirmed published. */
  pendingEvents?: PendingEvents;
}

export interface PendingPublication {
  kind: LifecycleKind;
  event: PendingEvent;
  tournament: Tournament;
}

const tournamentsCollection: CollectionDefinition<TournamentDocument> = {
  name: 'tournaments',
  indexes: [{ fields: { status: 1, startAt: 1 } }],
};

const notDeleted = { deletedAt: null } as const;

const pendingPath = (kind: LifecycleKind) => `pendingEvents.${kind}` as const;

function toTournament(document: TournamentDocument): Tournament {
  const { deletedAt: _deletedAt, pendingEvents: _pendingEvents, ...tournament } = document;
  return tournament;
}

const orNull = (document: TournamentDocument | null) => (document ? toTournament(document) : null);

/**
 * The `tournaments` collection. Every state change is one conditional `updateOne`, atomic on
 * MongoDB and, through the documents adapter's locks, on FerretDB (ADR 4); the event announcing
 * the change is written in the same update and cleared once published.
 */
export class TournamentRepository {
  private readonly tournaments: Collection<TournamentDocument>;

  constructor(documents: DocumentStore) {
    this.tournaments = documents.collection(tournamentsCollection);
  }

  async insert(tournament: Tournament, created: PendingEvent): Promise<void> {
    await this.tournaments.insertOne({ ...tournament, pendingEvents: { created } });
  }

  async findById(id: string): Promise<Tournament | null> {
    return orNull(await this.tournaments.findOne({ id, ...notDeleted }));
  }

  async findAll(): Promise<Tournament[]> {
    return (await this.tournaments.find(notDeleted)).map(toTournament);
  }

  /** Applies an edit if the tournament is still in the status the edit was checked against. */
  async update(
    id: string,
    expectedStatus: TournamentStatus,
    fields: TournamentFields,
    now: Date,
    updated: PendingEvent,
  ): Promise<Tournament | null> {
    const { description, prize, ...required } = fields;
    const update: Update<TournamentDocument> = {
      $set: {
        ...required,
        ...(description === undefined ? {} : { description }),
        ...(prize === undefined ? {} : { prize }),
        updatedAt: now,
        [pendingPath('updated')]: updated,
      },
    };
    // An optional text left blank is removed rather than stored empty.
    const unset: NonNullable<Update<TournamentDocument>['$unset']> = {};
    if (description === undefined) unset.description = true;
    if (prize === undefined) unset.prize = true;
    if (Object.keys(unset).length > 0) update.$unset = unset;
    return orNull(
      await this.tournaments.updateOne({ id, status: expectedStatus, ...notDeleted }, update),
    );
  }

  /** Hides an upcoming tournament; `purge` removes it once its deleted event is out. */
  async markDeleted(id: string, now: Date, deleted: PendingEvent): Promise<Tournament | null> {
    return orNull(
      await this.tournaments.updateOne(
        { id, status: 'upcoming', ...notDeleted },
        { $set: { deletedAt: now, updatedAt: now, [pendingPath('deleted')]: deleted } },
      ),
    );
  }

  async purge(id: string): Promise<void> {
    await this.tournaments.deleteOne({ id, deletedAt: { $exists: true } });
  }

  /** Upcoming tournaments whose start has come, soonest first. */
  async dueToStart(now: Date, limit: number): Promise<string[]> {
    const due = await this.tournaments.find(
      { status: 'upcoming', startAt: { $lte: now }, ...notDeleted },
      { sort: { startAt: 1 }, limit },
    );
    return due.map((tournament) => tournament.id);
  }

  /**
   * upcoming → live, if it still is upcoming and due. Of several replicas racing on one
   * tournament exactly one gets it back; the others get null.
   */
  async startIfDue(id: string, now: Date, live: PendingEvent): Promise<Tournament | null> {
    return orNull(
      await this.tournaments.updateOne(
        { id, status: 'upcoming', startAt: { $lte: now }, ...notDeleted },
        { $set: { status: 'live', updatedAt: now, [pendingPath('live')]: live } },
      ),
    );
  }

  /** live → finished, once. */
  async finishIfLive(id: string, now: Date, finished: PendingEvent): Promise<Tournament | null> {
    return orNull(
      await this.tournaments.updateOne(
        { id, status: 'live', ...notDeleted },
        { $set: { status: 'finished', updatedAt: now, [pendingPath('finished')]: finished } },
      ),
    );
  }

  async addParticipants(id: string, count: number): Promise<Tournament | null> {
    return orNull(
      await this.tournaments.updateOne(
        { id, ...notDeleted },
        { $inc: { participantCount: count } },
      ),
    );
  }

  /** Events of one kind written before `before` and still not confirmed published. */
  async pendingSince(
    kind: LifecycleKind,
    before: Date,
    limit: number,
  ): Promise<PendingPublication[]> {
    const filter: Filter<TournamentDocument> = {
      deletedAt: kind === 'deleted' ? { $exists: true } : null,
    };
    filter[`${pendingPath(kind)}.occurredAt`] = { $lte: before };
    const documents = await this.tournaments.find(filter, { limit });
    return documents.flatMap((document) => {
      const event = document.pendingEvents?.[kind];
      return event ? [{ kind, event, tournament: toTournament(document) }] : [];
    });
  }

  /** Marks an event published, unless a newer one of the same kind has replaced it since. */
  async clearPending(id: string, kind: LifecycleKind, eventId: string): Promise<void> {
    const filter: Filter<TournamentDocument> = { id };
    filter[`${pendingPath(kind)}.id`] = eventId;
    await this.tournaments.updateOne(filter, { $unset: { [pendingPath(kind)]: true } });
  }
}
