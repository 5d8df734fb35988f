import {
  defineCollection,
  maxCodePoints,
  Schema,
  type Collection,
  type DocumentOf,
  type DocumentStore,
  type Filter,
  type Update,
} from '@underdog/documents';
import {
  DESCRIPTION_MAX_LENGTH,
  PRIZE_MAX_LENGTH,
  ROUND_TIME_SECONDS,
  TITLE_MAX_LENGTH,
  type LifecycleKind,
  type Tournament,
  type TournamentFields,
  type TournamentStatus,
} from '../domain/tournament';

/** A lifecycle event written together with the change it announces (the outbox). */
export interface PendingEvent {
  /** The `event-id` header; a republish carries the same one. */
  id: string;
  occurredAt: Date;
}

const pendingEvent = new Schema(
  { id: { type: String, required: true }, occurredAt: { type: Date, required: true } },
  { _id: false },
);

const tournamentsCollection = defineCollection({
  name: 'tournaments',
  schema: new Schema({
    title: { type: String, required: true, validate: maxCodePoints(TITLE_MAX_LENGTH) },
    description: { type: String, validate: maxCodePoints(DESCRIPTION_MAX_LENGTH) },
    /** Free text as the admin typed it, e.g. "$5,000". */
    prize: { type: String, validate: maxCodePoints(PRIZE_MAX_LENGTH) },
    startAt: { type: Date, required: true },
    status: { type: String, enum: ['upcoming', 'live', 'finished'] as const, required: true },
    participantCount: { type: Number, required: true, min: 0 },
    roundTimeSeconds: {
      type: Number,
      required: true,
      // The edge holds admins to ROUND_TIME_SECONDS.min; a shorter round comes only from a
      // trusted in-process caller (the standalone demo's warm-up game, played at boot).
      min: 1,
      max: ROUND_TIME_SECONDS.max,
    },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    /** Set by an admin's delete; the document goes once the deleted event is published. */
    deletedAt: Date,
    /**
     * Events of changes made to this document and not yet confirmed published: one slot per
     * kind, so a newer edit never displaces an unpublished `live`.
     */
    pendingEvents: {
      created: pendingEvent,
      updated: pendingEvent,
      deleted: pendingEvent,
      live: pendingEvent,
      finished: pendingEvent,
    },
  }),
  indexes: [{ fields: { status: 1, startAt: 1 } }],
});

type TournamentDocument = DocumentOf<typeof tournamentsCollection>;

export interface PendingPublication {
  kind: LifecycleKind;
  event: PendingEvent;
  tournament: Tournament;
}

const notDeleted = { deletedAt: null } as const;

const pendingPath = (kind: LifecycleKind) => `pendingEvents.${kind}` as const;

function toTournament({
  deletedAt: _deletedAt,
  pendingEvents: _pendingEvents,
  description,
  prize,
  ...tournament
}: TournamentDocument): Tournament {
  return {
    ...tournament,
    ...(description == null ? {} : { description }),
    ...(prize == null ? {} : { prize }),
  };
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

  /**
   * Raises the participant count to the game engine's. A repeat, or a smaller count (an older
   * one arriving late), matches nothing (`$lt`), so it changes nothing, not even `updatedAt`.
   */
  async setParticipantCount(id: string, count: number, now: Date): Promise<Tournament | null> {
    return orNull(
      await this.tournaments.updateOne(
        { id, participantCount: { $lt: count }, ...notDeleted },
        { $set: { participantCount: count, updatedAt: now } },
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
