import { find, update as applyUpdate } from 'mingo';
import { cloneDeep, resolve } from 'mingo/util';
import { castDocument, type StoredModel } from './schema';
import {
  DuplicateKeyError,
  ID_INDEX,
  indexName,
  type Collection,
  type Filter,
  type FindOptions,
  type Identified,
  type IndexDefinition,
  type InsertManyOptions,
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
 * One collection in a Map; `mingo` evaluates filters, sorts and updates. Writes run one at a
 * time (validation is asynchronous), so `updateOne`'s match-then-update is atomic.
 */

/** Documents cast between two turns of the event loop in `insertMany`. */
const YIELD_EVERY = 100;
export class MemoryCollection<T extends Identified> implements Collection<T> {
  private readonly documents = new Map<string, T>();
  private readonly uniqueIndexes: UniqueIndex[];
  private writing: Promise<unknown> = Promise.resolve();

  constructor(
    readonly name: string,
    indexes: readonly IndexDefinition[],
    private readonly model: StoredModel,
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

  insertOne(document: T): Promise<void> {
    return this.insertMany([document]);
  }

  insertMany(documents: readonly T[], { ordered = true }: InsertManyOptions = {}): Promise<void> {
    return this.write(async () => {
      const copies: T[] = [];
      for (const document of documents) {
        copies.push(await this.cast(document));
        // Schema casting is CPU work: let the event loop breathe between slices, so writing a
        // big game's records in standalone mode does not stall its sockets (docs/benchmarks.md).
        if (copies.length % YIELD_EVERY === 0)
          await new Promise((resolve) => setImmediate(resolve));
      }
      const refused: number[] = [];
      let first: DuplicateKeyError | undefined;
      for (const [position, copy] of copies.entries()) {
        try {
          this.insert(copy);
        } catch (error) {
          if (!(error instanceof DuplicateKeyError) || ordered) throw error;
          first ??= error;
          refused.push(position);
        }
      }
      if (first) throw new DuplicateKeyError(this.name, first.index, { refused });
    });
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
    return this.query(filter, options).map((document) => cloneDeep(document));
  }

  async count(filter: Filter<T>): Promise<number> {
    this.ensureOpen();
    return this.query(filter, {}).length;
  }

  updateOne(
    filter: Filter<T>,
    update: Update<T>,
    options: UpdateOneOptions<T> = {},
  ): Promise<T | null> {
    return this.write(async () => {
      const [target] = this.query(filter, { sort: options.sort, limit: 1 });
      return target ? cloneDeep(await this.replace(target, update)) : null;
    });
  }

  updateMany(filter: Filter<T>, update: Update<T>): Promise<number> {
    return this.write(async () => {
      const targets = this.query(filter, {});
      for (const target of targets) await this.replace(target, update);
      return targets.length;
    });
  }

  private async replace(target: T, update: Update<T>): Promise<T> {
    const changed = cloneDeep(target) as T & Record<string, unknown>;
    const modifier = cloneDeep(update) as Parameters<typeof applyUpdate>[1];
    applyUpdate(changed, modifier, undefined, undefined, { cloneMode: 'none' });
    const next = await this.cast(changed);
    this.releaseUniqueKeys(target);
    try {
      this.claimUniqueKeys(next);
    } catch (error) {
      this.claimUniqueKeys(target);
      throw error;
    }
    this.documents.set(target.id, next);
    return next;
  }

  deleteOne(filter: Filter<T>): Promise<boolean> {
    return this.write(async () => {
      const [target] = this.query(filter, { limit: 1 });
      if (target) this.remove(target);
      return target !== undefined;
    });
  }

  deleteMany(filter: Filter<T>): Promise<number> {
    return this.write(async () => {
      const targets = this.query(filter, {});
      for (const target of targets) this.remove(target);
      return targets.length;
    });
  }

  /** Runs `work` after every write before it, so no two writes interleave. */
  private write<R>(work: () => Promise<R>): Promise<R> {
    const run = this.writing.then(() => {
      this.ensureOpen();
      return work();
    });
    this.writing = run.catch(() => undefined);
    return run;
  }

  /** A copy of the document as its schema makes it, or `DocumentValidationError`. */
  private async cast(document: T): Promise<T> {
    const { id, ...fields } = cloneDeep(document);
    const { _id, ...cast } = await castDocument(this.model, this.name, { _id: id, ...fields });
    return { id: _id, ...cast } as unknown as T;
  }

  private query(filter: Filter<T>, { sort, limit = 0 }: FindOptions<T>): T[] {
    let cursor = find([...this.documents.values()], filter as Record<string, unknown>);
    if (sort) cursor = cursor.sort(sort);
    if (limit > 0) cursor = cursor.limit(limit);
    return cursor.all() as T[];
  }

  private insert(document: T): void {
    if (this.documents.has(document.id)) throw new DuplicateKeyError(this.name, ID_INDEX);
    this.claimUniqueKeys(document);
    this.documents.set(document.id, document);
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
function uniqueKey(document: Identified, index: UniqueIndex): string {
  return JSON.stringify(
    index.paths.map((path) => {
      const value: unknown = resolve(document as unknown as Record<string, unknown>, path);
      return value instanceof Date ? { $date: value.getTime() } : (value ?? null);
    }),
  );
}

function copy<T>(document: T | undefined): T | null {
  return document === undefined ? null : cloneDeep(document);
}
