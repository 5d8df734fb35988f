import { randomUUID } from 'node:crypto';
import { isDuplicateKey, namedIndex, refusedPosition } from './mongo-errors';
import {
  fromStored,
  hasIdEquality,
  toMongoFilter,
  toMongoSort,
  toMongoUpdate,
  toStored,
  type MongoFilter,
  type MongoUpdate,
  type StoredDocument,
  type StoredModel,
} from './mongo-translate';
import { getPath } from './paths';
import {
  DuplicateKeyError,
  ID_INDEX,
  type Collection,
  type Filter,
  type FindOptions,
  type Identified,
  type Update,
  type UpdateOneOptions,
} from './port';

export interface UniqueIndex {
  name: string;
  paths: string[];
}

/** A collection on a server with atomic single-document updates: MongoDB. */
export class MongoCollection<T extends Identified> implements Collection<T> {
  constructor(
    readonly name: string,
    protected readonly model: StoredModel,
    private readonly uniqueIndexes: readonly UniqueIndex[],
  ) {}

  async insertOne(document: T): Promise<void> {
    await this.insertMany([document]);
  }

  async insertMany(documents: readonly T[]): Promise<void> {
    if (documents.length === 0) return;
    try {
      // lean: store the documents as given, without hydrating them into mongoose documents.
      await this.model.insertMany(documents.map(toStored), { ordered: true, lean: true });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const index =
        namedIndex(error, this.indexNames()) ??
        (await this.heldIndex(documents[refusedPosition(error)]));
      throw new DuplicateKeyError(this.name, index, { cause: error });
    }
  }

  async findById(id: string): Promise<T | null> {
    return fromStored<T>(await this.model.findOne({ _id: id }).lean<StoredDocument>().exec());
  }

  async findOne(filter: Filter<T>, options: FindOptions<T> = {}): Promise<T | null> {
    const query = this.model.findOne(toMongoFilter(filter));
    const sort = toMongoSort(options.sort);
    if (sort) query.sort(sort);
    return fromStored<T>(await query.lean<StoredDocument>().exec());
  }

  async find(filter: Filter<T>, options: FindOptions<T> = {}): Promise<T[]> {
    const query = this.model.find(toMongoFilter(filter));
    const sort = toMongoSort(options.sort);
    if (sort) query.sort(sort);
    if (options.skip) query.skip(options.skip);
    if (options.limit) query.limit(options.limit);
    const found = await query.lean<StoredDocument[]>().exec();
    return found.map((document) => fromStored<T>(document) as T);
  }

  async count(filter: Filter<T>): Promise<number> {
    return this.model.countDocuments(toMongoFilter(filter)).exec();
  }

  async updateOne(
    filter: Filter<T>,
    update: Update<T>,
    options: UpdateOneOptions<T> = {},
  ): Promise<T | null> {
    const mongoUpdate = toMongoUpdate(update);
    if (options.upsert && !hasIdEquality(filter)) {
      // Without an id to take from the filter, MongoDB would invent an ObjectId.
      mongoUpdate.$setOnInsert = { _id: randomUUID(), ...mongoUpdate.$setOnInsert };
    }
    return this.findOneAndUpdate(toMongoFilter(filter), mongoUpdate, options);
  }

  async updateMany(filter: Filter<T>, update: Update<T>): Promise<number> {
    const result = await this.translateUpdateErrors(() =>
      this.model.updateMany(toMongoFilter(filter), toMongoUpdate(update)).exec(),
    );
    return result.matchedCount;
  }

  async deleteOne(filter: Filter<T>): Promise<boolean> {
    const result = await this.model.deleteOne(toMongoFilter(filter)).exec();
    return result.deletedCount === 1;
  }

  async deleteMany(filter: Filter<T>): Promise<number> {
    const result = await this.model.deleteMany(toMongoFilter(filter)).exec();
    return result.deletedCount;
  }

  protected async findOneAndUpdate(
    filter: MongoFilter,
    update: MongoUpdate,
    options: UpdateOneOptions<T>,
  ): Promise<T | null> {
    const sort = toMongoSort(options.sort);
    const updated = await this.translateUpdateErrors(() =>
      this.model
        .findOneAndUpdate(filter, update, {
          returnDocument: 'after',
          upsert: options.upsert ?? false,
          ...(sort ? { sort } : {}),
        })
        .lean<StoredDocument>()
        .exec(),
    );
    return fromStored<T>(updated);
  }

  protected async translateUpdateErrors<R>(operation: () => Promise<R>): Promise<R> {
    try {
      return await operation();
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const index = namedIndex(error, this.indexNames()) ?? 'unknown';
      throw new DuplicateKeyError(this.name, index, { cause: error });
    }
  }

  private indexNames(): string[] {
    return [ID_INDEX, ...this.uniqueIndexes.map((index) => index.name)];
  }

  /**
   * Which unique index already holds the refused document's values, for servers whose error
   * does not say (FerretDB on inserts). Looked up after the fact, so a conflicting document
   * deleted in between leaves it unknown.
   */
  private async heldIndex(document: T | undefined): Promise<string> {
    if (!document) return 'unknown';
    if (await this.model.exists({ _id: document.id })) return ID_INDEX;
    for (const index of this.uniqueIndexes) {
      const values = index.paths.map((path) => [path, getPath(document, path) ?? null]);
      if (await this.model.exists(toMongoFilter(Object.fromEntries(values)))) return index.name;
    }
    return 'unknown';
  }
}
