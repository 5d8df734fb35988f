import {
  defineCollection,
  maxCodePoints,
  Schema,
  type Collection,
  type DocumentOf,
  type DocumentStore,
} from '@underdog/documents';
import {
  advertisementRules,
  advertisementTypes,
  displayPositions,
  type Advertisement,
  type AdvertisementChanges,
  type DisplayPosition,
} from '../domain/advertisement';

/**
 * An advertisement as stored, with the bookkeeping of its `ads.catalog` publication. The document
 * is its own outbox: a write and the note that the catalog still has to hear of it are one atomic
 * document update, so no change is lost between the database and Kafka (see catalog-sync.ts).
 */
export const advertisementsCollection = defineCollection({
  name: 'advertisements',
  schema: new Schema({
    title: {
      type: String,
      required: true,
      validate: maxCodePoints(advertisementRules.maxTitleLength),
    },
    type: { type: String, enum: advertisementTypes, required: true },
    /** Text, a URL or markup, by type. */
    content: {
      type: String,
      required: true,
      validate: maxCodePoints(advertisementRules.maxContentLength),
    },
    displayPosition: { type: String, enum: displayPositions, required: true },
    isActive: { type: Boolean, required: true },
    /** Seconds. */
    duration: {
      type: Number,
      required: true,
      min: advertisementRules.minDuration,
      max: advertisementRules.maxDuration,
    },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    /** Bumped by every write; the catalog sync compares it before and after it publishes. */
    revision: { type: Number, required: true, min: 1 },
    /** From a write until `ads.catalog` is known to carry it. */
    catalogPending: { type: Boolean, required: true },
    /** Set by a delete until the tombstone is out; the ad no longer exists for callers. */
    deletedAt: Date,
  }),
  indexes: [
    { fields: { displayPosition: 1, isActive: 1, createdAt: 1 } },
    { fields: { catalogPending: 1 } },
  ],
});

type StoredAdvertisement = DocumentOf<typeof advertisementsCollection>;

/** What the catalog has to say about an ad: its current state, or that it is gone. */
export type CatalogState =
  | { kind: 'live'; revision: number; advertisement: Advertisement }
  | { kind: 'deleted'; revision: number }
  | { kind: 'gone' };

const notDeleted = { deletedAt: null } as const;

/** The `advertisements` collection: queries for the use cases and for the catalog sync. */
export class AdvertisementRepository {
  private readonly collection: Collection<StoredAdvertisement>;

  constructor(documents: DocumentStore) {
    this.collection = documents.collection(advertisementsCollection);
  }

  async insert(advertisement: Advertisement): Promise<void> {
    await this.collection.insertOne({ ...advertisement, revision: 1, catalogPending: true });
  }

  /** Active ads of one position, oldest first (so "the first one" stays the same). */
  async listActive(position: DisplayPosition): Promise<Advertisement[]> {
    const stored = await this.collection.find(
      { ...notDeleted, displayPosition: position, isActive: true },
      { sort: { createdAt: 1, id: 1 } },
    );
    return stored.map(toAdvertisement);
  }

  /** Every ad, newest first. */
  async listAll(): Promise<Advertisement[]> {
    const stored = await this.collection.find(notDeleted, { sort: { createdAt: -1, id: -1 } });
    return stored.map(toAdvertisement);
  }

  /** The ad after the change, or null when there is no such ad. */
  /** The ad and its revision, or null when there is no such ad (or it was deleted). */
  async byId(id: string): Promise<{ advertisement: Advertisement; revision: number } | null> {
    const stored = await this.collection.findById(id);
    if (!stored || stored.deletedAt) return null;
    return { advertisement: toAdvertisement(stored), revision: stored.revision };
  }

  /**
   * The ad after the change, or null when there is no such ad, or (with `expectedRevision`)
   * when it changed since that revision was read.
   */
  async update(
    id: string,
    changes: AdvertisementChanges,
    updatedAt: Date,
    expectedRevision?: number,
  ): Promise<Advertisement | null> {
    const updated = await this.collection.updateOne(
      {
        id,
        ...notDeleted,
        ...(expectedRevision === undefined ? {} : { revision: expectedRevision }),
      },
      {
        $set: { ...definedOnly(changes), updatedAt, catalogPending: true },
        $inc: { revision: 1 },
      },
    );
    return updated && toAdvertisement(updated);
  }

  /** Hides the ad at once; `purge` removes it once its tombstone is published. */
  async markDeleted(id: string, deletedAt: Date): Promise<boolean> {
    const deleted = await this.collection.updateOne(
      { id, ...notDeleted },
      { $set: { deletedAt, catalogPending: true }, $inc: { revision: 1 } },
    );
    return deleted !== null;
  }

  async catalogState(id: string): Promise<CatalogState> {
    const stored = await this.collection.findById(id);
    if (!stored) return { kind: 'gone' };
    if (stored.deletedAt) return { kind: 'deleted', revision: stored.revision };
    return { kind: 'live', revision: stored.revision, advertisement: toAdvertisement(stored) };
  }

  /** The catalog carries `revision`; a later write keeps the ad pending for its own sync. */
  async markCatalogSynced(id: string, revision: number): Promise<void> {
    await this.collection.updateOne({ id, revision }, { $set: { catalogPending: false } });
  }

  /** Removes a deleted ad whose tombstone is published. */
  async purge(id: string, revision: number): Promise<void> {
    await this.collection.deleteOne({ id, revision, deletedAt: { $exists: true } });
  }

  async catalogPendingIds(): Promise<string[]> {
    const pending = await this.collection.find({ catalogPending: true });
    return pending.map((stored) => stored.id);
  }
}

function toAdvertisement(stored: StoredAdvertisement): Advertisement {
  return {
    id: stored.id,
    title: stored.title,
    type: stored.type,
    content: stored.content,
    displayPosition: stored.displayPosition,
    isActive: stored.isActive,
    duration: stored.duration,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
  };
}

/** Absent fields stay as they are, in both adapters (`$set: { title: undefined }` would not). */
function definedOnly<T extends object>(changes: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(changes).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}
