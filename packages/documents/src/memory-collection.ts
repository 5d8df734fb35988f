import sift from 'sift';
import { cloneDocument } from './clone';
import { getPath } from './paths';
import { comparatorFor } from './memory-sort';
import { applyUpdate, documentFromUpsert } from './apply-update';
import {
  DuplicateKeyError,
  ID_INDEX,
  indexName,
  type Collection,
  type Filter,
  type FindOptions,
  type Identified,
  type IndexDefinition,
  type Update,
  type UpdateOneOptions,
} from './port';

interface UniqueIndex {
  name: string;
  paths: string[];
  /** Index key → id of the document holding it. */
  owners: Map<string, string>;
}

/**
 * One collection in a Map. Every method finishes its work synchronously, which makes each of
 * them atomic on the single event loop, `updateOne`'s match-then-update included.
 */
export class MemoryCollection<T extends Identified> implements Collection<T> {
  private readonly documents = new Map<string, T>();
  private readonly uniqueIndexes: UniqueIndex[];

  constructor(
    readonly name: string,
    indexes: readonly IndexDefinition[],
    private readonly ensureOpen: () => void,
  ) {
    this.uniqueIndexes = indexes
      .filter((index) => index.unique)
      .map((index) => ({
        name: indexName(index.fields),
        paths: Object.keys(index.fields),
        owners: new Map(),
      }));
  }

  async insertOne(document: T): Promise<void> {
    this.ensureOpen();
    this.insert(cloneDocument(document));
  }

  async insertMany(documents: readonly T[]): Promise<void> {
    this.ensureOpen();
    for (const document of documents) this.insert(cloneDocument(document));
  }

  async findById(id: string): Promise<T | null> {
    this.ensureOpen();
    return copy(this.documents.get(id));
  }

  async findOne(filter: Filter<T>, options: FindOptions<T> = {}): Promise<T | null> {
    this.ensureOpen();
    return copy(this.query(filter, { sort: options.sort, limit: 1 })[0]);
  }

  async find(filter: Filter<T>, options: FindOptions<T> = {}): Promise<T[]> {
    this.ensureOpen();
    return this.query(filter, options).map((document) => cloneDocument(document));
  }

  async count(filter: Filter<T>): Promise<number> {
    this.ensureOpen();
    return this.query(filter, {}).length;
  }

  async updateOne(
    filter: Filter<T>,
    update: Update<T>,
    options: UpdateOneOptions<T> = {},
  ): Promise<T | null> {
    this.ensureOpen();
    const [target] = this.query(filter, { sort: options.sort, limit: 1 });
    if (target) return copy(this.replace(target, update));
    if (!options.upsert) return null;
    const created = documentFromUpsert(filter, update) as unknown as T;
    this.insert(created);
    return copy(created);
  }

  async updateMany(filter: Filter<T>, update: Update<T>): Promise<number> {
    this.ensureOpen();
    const targets = this.query(filter, {});
    for (const target of targets) this.replace(target, update);
    return targets.length;
  }

  async deleteOne(filter: Filter<T>): Promise<boolean> {
    this.ensureOpen();
    const [target] = this.query(filter, { limit: 1 });
    if (target) this.remove(target);
    return target !== undefined;
  }

  async deleteMany(filter: Filter<T>): Promise<number> {
    this.ensureOpen();
    const targets = this.query(filter, {});
    for (const target of targets) this.remove(target);
    return targets.length;
  }

  private query(filter: Filter<T>, { sort, skip = 0, limit = 0 }: FindOptions<T>): T[] {
    const matches = sift(filter as Parameters<typeof sift>[0]);
    const found = [...this.documents.values()].filter((document) => matches(document));
    if (sort) found.sort(comparatorFor(sort));
    return found.slice(skip, limit > 0 ? skip + limit : undefined);
  }

  private insert(document: T): void {
    if (this.documents.has(document.id)) throw new DuplicateKeyError(this.name, ID_INDEX);
    this.claimUniqueKeys(document);
    this.documents.set(document.id, document);
  }

  private replace(current: T, update: Update<T>): T {
    const next = cloneDocument(current) as T & Record<string, unknown>;
    applyUpdate(next, update, false);
    this.releaseUniqueKeys(current);
    try {
      this.claimUniqueKeys(next);
    } catch (error) {
      this.claimUniqueKeys(current);
      throw error;
    }
    this.documents.set(current.id, next);
    return next;
  }

  private remove(document: T): void {
    this.releaseUniqueKeys(document);
    this.documents.delete(document.id);
  }

  /** All or nothing: a document taking a key that is held leaves every index as it was. */
  private claimUniqueKeys(document: T): void {
    const keys = this.uniqueIndexes.map((index) => uniqueKey(document, index));
    this.uniqueIndexes.forEach((index, i) => {
      const owner = index.owners.get(keys[i] ?? '');
      if (owner !== undefined && owner !== document.id) {
        throw new DuplicateKeyError(this.name, index.name);
      }
    });
    this.uniqueIndexes.forEach((index, i) => index.owners.set(keys[i] ?? '', document.id));
  }

  private releaseUniqueKeys(document: T): void {
    for (const index of this.uniqueIndexes) index.owners.delete(uniqueKey(document, index));
  }
}

/** Missing and null are the same key, as in a (non-sparse) MongoDB unique index. */
function uniqueKey(document: unknown, index: UniqueIndex): string {
  return JSON.stringify(
    index.paths.map((path) => {
      const value = getPath(document, path);
      return value instanceof Date ? { $date: value.getTime() } : (value ?? null);
    }),
  );
}

function copy<T>(document: T | undefined): T | null {
  return document === undefined ? null : cloneDocument(document);
}
