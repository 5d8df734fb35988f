import { MongoCollection, type UniqueIndex } from './mongo-collection';
import type { DocumentLocks } from './mongo-locks';
import {
  onlyDocument,
  onlyDocuments,
  toMongoFilter,
  toMongoSort,
  toMongoUpdate,
  type MongoFilter,
} from './mongo-translate';
import type { Filter, FindOptions, Identified, Update, UpdateOneOptions } from './port';
import type { StoredModel } from './schema';

/**
 * Documents locked together by one `updateMany` or `deleteMany`: their locks' lease (10 s) must
 * outlast the one write that changes them all, on a loaded test machine too.
 */
const LOCKED_BATCH_SIZE = 100;

/**
 * A collection on a server without atomic single-document updates (FerretDB 1.x): every write
 * to an existing document finds it, locks it (see `DocumentLocks`), then updates or deletes it
 * only if it still matches.
 */
export class LockedMongoCollection<T extends Identified> extends MongoCollection<T> {
  constructor(
    name: string,
    model: StoredModel,
    uniqueIndexes: readonly UniqueIndex[],
    private readonly locks: DocumentLocks,
  ) {
    super(name, model, uniqueIndexes);
  }

  override async updateOne(
    filter: Filter<T>,
    update: Update<T>,
    options: UpdateOneOptions<T> = {},
  ): Promise<T | null> {
    const mongoFilter = toMongoFilter(filter);
    const mongoUpdate = toMongoUpdate(update);
    for (;;) {
      const id = await this.firstMatch(mongoFilter, options.sort);
      if (id === undefined) return null;
      const updated = await this.locks.withLock(this.name, id, () =>
        this.findOneAndUpdate(onlyDocument(mongoFilter, id), mongoUpdate, {}),
      );
      if (updated) return updated;
      // It changed between finding and locking it: look again.
    }
  }

  /**
   * The matching documents whose locks are free are locked, updated and released together (a
   * few round trips per batch); only those another writer holds are updated one at a time.
   */
  override async updateMany(filter: Filter<T>, update: Update<T>): Promise<number> {
    const mongoFilter = toMongoFilter(filter);
    const mongoUpdate = toMongoUpdate(update);
    let updated = 0;
    for (const batch of chunks(await this.matchingIds(mongoFilter), LOCKED_BATCH_SIZE)) {
      const busy = await this.locks.withFreeLocks(this.name, batch, async (locked) => {
        const result = await this.translateUpdateErrors(() =>
          this.model
            .updateMany(onlyDocuments(mongoFilter, locked), mongoUpdate, { runValidators: true })
            .exec(),
        );
        updated += result.matchedCount;
      });
      for (const id of busy) {
        const result = await this.locks.withLock(this.name, id, () =>
          this.translateUpdateErrors(() =>
            this.model
              .updateOne(onlyDocument(mongoFilter, id), mongoUpdate, { runValidators: true })
              .exec(),
          ),
        );
        updated += result.matchedCount;
      }
    }
    return updated;
  }

  override async deleteOne(filter: Filter<T>): Promise<boolean> {
    const mongoFilter = toMongoFilter(filter);
    for (;;) {
      const id = await this.firstMatch(mongoFilter, undefined);
      if (id === undefined) return false;
      if (await this.deleteLocked(mongoFilter, id)) return true;
    }
  }

  /** As `updateMany`: the documents whose locks are free together, the others one at a time. */
  override async deleteMany(filter: Filter<T>): Promise<number> {
    const mongoFilter = toMongoFilter(filter);
    let deleted = 0;
    for (const batch of chunks(await this.matchingIds(mongoFilter), LOCKED_BATCH_SIZE)) {
      const busy = await this.locks.withFreeLocks(this.name, batch, async (locked) => {
        const result = await this.model.deleteMany(onlyDocuments(mongoFilter, locked)).exec();
        deleted += result.deletedCount;
      });
      for (const id of busy) {
        if (await this.deleteLocked(mongoFilter, id)) deleted += 1;
      }
    }
    return deleted;
  }

  private async deleteLocked(filter: MongoFilter, id: string): Promise<boolean> {
    const result = await this.locks.withLock(this.name, id, () =>
      this.model.deleteOne(onlyDocument(filter, id)).exec(),
    );
    return result.deletedCount === 1;
  }

  private async firstMatch(
    filter: MongoFilter,
    sort: FindOptions<T>['sort'],
  ): Promise<string | undefined> {
    const query = this.model.findOne(filter).select({ _id: 1 });
    const mongoSort = toMongoSort(sort);
    if (mongoSort) query.sort(mongoSort);
    return (await query.lean<{ _id: string }>().exec())?._id;
  }

  private async matchingIds(filter: MongoFilter): Promise<string[]> {
    const found = await this.model.find(filter).select({ _id: 1 }).lean<Array<{ _id: string }>>();
    return found.map(({ _id }) => _id);
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) {
    result.push(items.slice(start, start + size));
  }
  return result;
}
