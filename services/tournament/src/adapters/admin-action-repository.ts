import {
  defineCollection,
  insertOnce,
  required,
  Schema,
  withoutEmpty,
  type Collection,
  type DocumentOf,
  type DocumentStore,
} from '@underdog/documents';

/** The cases of `underdog.events.v1.AdminActionEvent`, as stored and listed. */
export const adminActionKinds = [
  'tournamentCreated',
  'tournamentUpdated',
  'tournamentDeleted',
  'advertisementCreated',
  'advertisementUpdated',
  'advertisementDeleted',
  'participantDisqualified',
  'prizePaidConfirmed',
  'attemptRefused',
  'fairPlayReportRead',
] as const;
export type AdminActionKind = (typeof adminActionKinds)[number];

/**
 * The audit log (issue 28): one document per `admin.actions` event, id = its `event-id`, so a
 * redelivered event is one row. `position` is the listing order and the page cursor:
 * `<occurredAt ISO 8601>~<id>`, which sorts like (occurredAt, id) as a string.
 */
const adminActionsCollection = defineCollection({
  name: 'admin_actions',
  schema: new Schema({
    position: required(String),
    action: { type: String, required: true, enum: adminActionKinds },
    // '' for an attempt refused to a visitor.
    actorUserId: String,
    actorUsername: String,
    occurredAt: required(Date),
    tournamentId: String,
    advertisementId: String,
    targetUserId: String,
    summary: String,
    requestId: String,
    clientAddress: String,
  }),
  indexes: [{ fields: { position: -1 } }, { fields: { tournamentId: 1 } }],
});

export type StoredAdminAction = DocumentOf<typeof adminActionsCollection>;
export type AdminActionRow = Omit<StoredAdminAction, 'position'>;

/** The cursor of a row: its place in the newest-first order. */
export const positionOf = (row: Pick<AdminActionRow, 'id' | 'occurredAt'>): string =>
  `${row.occurredAt.toISOString()}~${row.id}`;

/** The audit log's store (MongoDB in distributed mode, the memory store standalone). */
export class AdminActionRepository {
  private readonly actions: Collection<StoredAdminAction>;

  constructor(documents: DocumentStore) {
    this.actions = documents.collection(adminActionsCollection);
  }

  /** Idempotent on the row's id (the event id): false when it was already recorded. */
  async record(row: AdminActionRow): Promise<boolean> {
    return insertOnce(this.actions, { ...withoutEmpty(row), position: positionOf(row) });
  }

  /** Newest first: `limit` rows older than `before` (a row's position), or the newest. */
  async page(limit: number, before?: string): Promise<StoredAdminAction[]> {
    return this.actions.find(before ? { position: { $lt: before } } : {}, {
      sort: { position: -1 },
      limit,
    });
  }
}
