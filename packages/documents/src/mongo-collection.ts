import { resolve } from 'mingo/util';
import { isDuplicateKey, namedIndex, refusedPositions } from './mongo-errors';
import {
  fromStored,
  toMongoFilter,
  toMongoSort,
  toMongoUpdate,
  toStored,
  type MongoFilter,
  type MongoUpdate,
} from './mongo-translate';
import {
  DuplicateKeyError,
  ID_INDEX,
  type Collection,
  type Filter,
  type FindOptions,
  type Identified,
  type InsertManyOptions,
  type Update,
  type UpdateOneOptions,
} from './port';
import { asValidationError, castDocument, type StoredDocument, type StoredModel } from './schema';

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

  async insertMany(
    documents: readonly T[],
    { ordered = true }: InsertManyOptions = {},
  ): Promise<void> {
    if (documents.length === 0) return;
    const stored: StoredDocument[] = [];
    for (const document of documents) {
      stored.push(await castDocument(this.model, this.name, toStored(document)));
    }
    try {
      // lean: store the documents as cast above, without validating them again.
      await this.model.insertMany(stored, { ordered, lean: true });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const refused = refusedPositions(error);
      const index =
        namedIndex(error, this.indexNames()) ?? (await this.heldIndex(documents[refused[0] ?? 0]));
      throw new DuplicateKeyError(this.name, index, {
        cause: error,
        ...(ordered ? {} : { refused }),
      });
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
    return this.findOneAndUpdate(toMongoFilter(filter), toMongoUpdate(update), options);
  }

  async updateMany(filter: Filter<T>, update: Update<T>): Promise<number> {
    const result = await this.translateUpdateErrors(() =>
      this.model
        .updateMany(toMongoFilter(filter), toMongoUpdate(update), { runValidators: true })
        .exec(),
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

  /** mongoose's update validators check the changed fields against the schema first. */
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
          runValidators: true,
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
      const invalid = asValidationError(this.name, error);
      if (invalid) throw invalid;
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
      const values = index.paths.map((path) => [
        path,
        (resolve(document as Record<string, unknown>, path) as unknown) ?? null,
      ]);
      if (await this.model.exists(toMongoFilter(Object.fromEntries(values)))) return index.name;
    }
    return 'unknown';
  }
}
