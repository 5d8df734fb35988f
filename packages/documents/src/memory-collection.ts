// Over 300 lines: one collection, whose documents, hash indexes, unique keys and write queue share its state.
import { find, updateMany as applyUpdate } from 'mingo';
import { cloneDeep, resolve } from 'mingo/util';
import { compileFilter, FieldIndex, matchesEquality, type Equality } from './memory-query';
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
 * One collection in a Map; `mingo` evaluates filters, sorts and updates, except equality and
 * `$in` on top-level fields (`memory-query.ts`), which are answered from the id or from a hash
 * index on every field the collection's declared indexes name. Writes run one at a time
 * (validation is asynchronous), so `updateOne`'s match-then-update is atomic.
 */

/** Documents cast between two turns of the event loop in `insertMany`. */
const YIELD_EVERY = 100;
export class MemoryCollection<T extends Identified> implements Collection<T> {
  private readonly documents = new Map<string, T>();
  /** Each stored document's place in `documents`: the order a full scan finds them in. */
  private readonly positions = new Map<string, number>();
  private nextPosition = 0;
  private readonly uniqueIndexes: UniqueIndex[];
  private readonly fieldIndexes = new Map<string, FieldIndex>();
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
    for (const { fields } of indexes) {
      for (const field of Object.keys(fields)) {
        if (field !== 'id' && !field.includes('.') && !this.fieldIndexes.has(field)) {
          this.fieldIndexes.set(field, new FieldIndex(field));
        }
      }
    }
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
      if (!target) return null;
      const [changed] = updated([target], update);
      return cloneDeep(await this.replace(target, changed as T));
    });
  }

  updateMany(filter: Filter<T>, update: Update<T>): Promise<number> {
    return this.write(async () => {
      const targets = this.query(filter, {});
      const changed = updated(targets, update);
      for (const [i, target] of targets.entries()) await this.replace(target, changed[i] as T);
      return targets.length;
    });
  }

  /** Stores `changed` (the target with the update applied) as the schema casts it, or throws. */
  private async replace(target: T, changed: T): Promise<T> {
    const next = await this.cast(changed);
    this.releaseUniqueKeys(target);
    try {
      this.claimUniqueKeys(next);
    } catch (error) {
      this.claimUniqueKeys(target);
      throw error;
    }
    for (const index of this.fieldIndexes.values()) {
      const field = index.field as keyof T;
      if (target[field] === next[field] && typeof next[field] !== 'object') continue;
      index.remove(target.id, target as Record<string, unknown>);
      index.add(next.id, next as Record<string, unknown>);
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

  /** The matching documents in stored order, then sorted and limited. */
  private query(filter: Filter<T>, { sort, limit = 0 }: FindOptions<T>): T[] {
    const { equalities, rest } = compileFilter(filter as Record<string, unknown>);
    const matches = (document: T): boolean =>
      equalities.every((equality) =>
        matchesEquality((document as Record<string, unknown>)[equality.field], equality),
      ) &&
      (rest === undefined || rest.test(document as Record<string, unknown>));
    const candidates = this.candidates(equalities);
    let found: T[] = [];
    if (candidates) {
      for (const document of candidates) if (matches(document)) found.push(document);
      if (found.length > 1) found.sort((a, b) => this.positionOf(a) - this.positionOf(b));
    } else {
      // Without a sort, the first `limit` matches of the scan are the answer.
      const enough = sort ? 0 : limit;
      for (const document of this.documents.values()) {
        if (!matches(document)) continue;
        found.push(document);
        if (found.length === enough) break;
      }
    }
    if (sort && found.length > 1) found = find(found, {}).sort(sort).all() as T[];
    return limit > 0 && found.length > limit ? found.slice(0, limit) : found;
  }

  /**
   * The documents that may match, from the id or the field index of the equality with the
   * fewest; undefined when none narrows it below a full scan.
   */
  private candidates(equalities: readonly Equality[]): T[] | undefined {
    let fewest: { count: number; ids: () => Iterable<string> } | undefined;
    for (const equality of equalities) {
      const index = this.fieldIndexes.get(equality.field);
      const option =
        equality.field === 'id'
          ? { count: equality.scalars.size, ids: () => idsOf(equality) }
          : index && { count: index.count(equality), ids: () => index.candidates(equality) };
      if (option && (!fewest || option.count < fewest.count)) fewest = option;
    }
    if (!fewest || fewest.count >= this.documents.size) return undefined;
    const documents: T[] = [];
    for (const id of fewest.ids()) {
      const document = this.documents.get(id);
      if (document) documents.push(document);
    }
    return documents;
  }

  private positionOf(document: T): number {
    return this.positions.get(document.id) ?? 0;
  }

  private insert(document: T): void {
    if (this.documents.has(document.id)) throw new DuplicateKeyError(this.name, ID_INDEX);
    this.claimUniqueKeys(document);
    this.documents.set(document.id, document);
    this.positions.set(document.id, this.nextPosition++);
    for (const index of this.fieldIndexes.values())
      index.add(document.id, document as Record<string, unknown>);
  }

  private remove(document: T): void {
    this.releaseUniqueKeys(document);
    for (const index of this.fieldIndexes.values())
      index.remove(document.id, document as Record<string, unknown>);
    this.documents.delete(document.id);
    this.positions.delete(document.id);
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

/**
 * Copies of the targets with the update applied, in one pass of mingo's updater: a call of its
 * own per document would build its operator tables anew each time (most of the cost). Values
 * from the update are copied into each document, so no two share one.
 */
function updated<T extends Identified>(targets: readonly T[], update: Update<T>): T[] {
  const copies = targets.map((target) => cloneDeep(target) as T & Record<string, unknown>);
  if (copies.length > 0) {
    applyUpdate(copies, {}, update as Parameters<typeof applyUpdate>[2], { cloneMode: 'deep' });
  }
  return copies;
}

/** The ids an equality on `id` names: ids are strings, so no other value finds one. */
function idsOf(equality: Equality): string[] {
  return [...equality.scalars].filter((value): value is string => typeof value === 'string');
}

function copy<T>(document: T | undefined): T | null {
  return document === undefined ? null : cloneDeep(document);
}
