import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Mutex } from 'async-mutex';
import { Schema, type Connection, type Model } from 'mongoose';
import { isDuplicateKey, refusedPositions } from './mongo-errors';

interface LockDocument {
  _id: string;
  owner: string;
  expiresAt: Date;
}

export const LOCKS_COLLECTION = 'underdog_document_locks';

/** Long enough for one update round trip with a wide margin, short enough to survive a crash. */
const LEASE_MS = 10_000;
/** Long enough to queue behind dozens of writers on one document on a busy test machine. */
const WAIT_MS = 40_000;
const MAX_BACKOFF_MS = 40;

/**
 * One writer per document at a time, across processes, for servers whose single-document
 * updates are not atomic. FerretDB 1.x (SQLite) runs findAndModify and update as a read, a
 * change in Go and an unconditional write by id, so two racing `updateOne({ id, status:
 * 'upcoming' })` can both win and concurrent `$inc`s get lost. What it does do atomically is
 * refuse a second document with the same `_id`: holding a lock is having inserted it.
 *
 * A crashed holder's lock is broken once its lease has run out. A holder stalled for longer
 * than the lease could still overlap with the next one; with a ten-second lease on a test
 * server that is an accepted risk (real MongoDB never takes this path).
 *
 * Writers in one process queue in order on an in-process mutex per document first, so only the
 * head of each process's queue polls the server. Without it fifty writers polled at once with
 * random back-off: each poll is a write on FerretDB's single SQLite writer, the holder's own
 * update queued behind them, and an unlucky writer could wait past `WAIT_MS` (a CI run lost a
 * `$inc` test that way, 2.4 s here, over 40 s there).
 */
export class DocumentLocks {
  private readonly locks: Model<LockDocument>;
  private readonly local = new Map<string, { mutex: Mutex; users: number }>();

  constructor(connection: Connection) {
    this.locks = connection.model<LockDocument>(
      LOCKS_COLLECTION,
      new Schema<LockDocument>(
        { _id: String, owner: String, expiresAt: Date },
        { versionKey: false, autoIndex: false },
      ),
      LOCKS_COLLECTION,
    );
  }

  /**
   * Runs `work` on those of `ids` whose locks are free now, all taken by one insert and given
   * back by one delete, and answers the others (held by another writer, here or elsewhere) for
   * `withLock` one at a time. A write to many documents (a round's eliminations) took three
   * round trips per document, each a write on FerretDB's single SQLite writer: on a loaded
   * machine, after the store had been stopped, a game's records took tens of seconds to catch up
   * (issue 38, mongo-at-end).
   */
  async withFreeLocks(
    collection: string,
    ids: readonly string[],
    work: (locked: string[]) => Promise<void>,
  ): Promise<string[]> {
    // Documents a writer of this process holds or waits for stay in its queue (see `withLock`).
    const busy = ids.filter((id) => this.local.has(`${collection}/${id}`));
    const candidates = ids.filter((id) => !this.local.has(`${collection}/${id}`));
    if (candidates.length === 0) return busy;
    const entries = candidates.map((id) => {
      const key = `${collection}/${id}`;
      const entry = { mutex: new Mutex(), users: 1 };
      this.local.set(key, entry);
      return { id, key, entry, release: entry.mutex.acquire() };
    });
    try {
      await Promise.all(entries.map(({ release }) => release));
      const owner = randomUUID();
      const refused = new Set(
        await this.insertLocks(
          entries.map(({ key }) => key),
          owner,
        ),
      );
      const locked = entries.filter((_, position) => !refused.has(position));
      if (locked.length > 0) {
        try {
          await work(locked.map(({ id }) => id));
        } finally {
          await this.locks.deleteMany({ _id: { $in: locked.map(({ key }) => key) }, owner }).exec();
        }
      }
      return [
        ...busy,
        ...entries.filter((_, position) => refused.has(position)).map(({ id }) => id),
      ];
    } finally {
      for (const { key, entry, release } of entries) {
        (await release)();
        entry.users -= 1;
        if (entry.users === 0) this.local.delete(key);
      }
    }
  }

  async withLock<R>(collection: string, id: string, work: () => Promise<R>): Promise<R> {
    const key = `${collection}/${id}`;
    const entry = this.local.get(key) ?? { mutex: new Mutex(), users: 0 };
    entry.users += 1;
    this.local.set(key, entry);
    try {
      return await entry.mutex.runExclusive(async () => {
        const owner = randomUUID();
        await this.acquire(key, owner);
        try {
          return await work();
        } finally {
          await this.locks.deleteOne({ _id: key, owner }).exec();
        }
      });
    } finally {
      entry.users -= 1;
      if (entry.users === 0) this.local.delete(key);
    }
  }

  /**
   * Inserts the lock documents in one batch: the positions of those another writer holds (all of
   * them if the server did not say which).
   */
  private async insertLocks(keys: readonly string[], owner: string): Promise<number[]> {
    const expiresAt = new Date(Date.now() + LEASE_MS);
    try {
      await this.locks.insertMany(
        keys.map((key) => ({ _id: key, owner, expiresAt })),
        { ordered: false, lean: true },
      );
      return [];
    } catch (error) {
      const refused = isDuplicateKey(error) ? refusedPositions(error) : [];
      if (refused.length > 0) return refused;
      // Not knowing which it holds, it holds none: whatever was inserted is given back.
      await this.locks
        .deleteMany({ _id: { $in: [...keys] }, owner })
        .exec()
        .catch(() => undefined);
      if (isDuplicateKey(error)) return keys.map((_, position) => position);
      throw error;
    }
  }

  private async acquire(key: string, owner: string): Promise<void> {
    const giveUpAt = Date.now() + WAIT_MS;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const lock = { _id: key, owner, expiresAt: new Date(Date.now() + LEASE_MS) };
        await this.locks.insertMany([lock], { lean: true });
        return;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      await this.locks.deleteOne({ _id: key, expiresAt: { $lt: new Date() } }).exec();
      if (Date.now() > giveUpAt) {
        throw new Error(`gave up after ${WAIT_MS} ms waiting for the lock on ${key}`);
      }
      // Jittered so that waiters released together do not collide again in step.
      await sleep(Math.random() * Math.min(2 ** attempt, MAX_BACKOFF_MS));
    }
  }
}

/**
 * FerretDB announces itself in buildInfo, though not always with a usable version (an
 * embedded build says "unknown"). Any FerretDB gets locks: they cost round trips, never
 * correctness, and MongoDB itself never needs them.
 */
export async function needsDocumentLocks(connection: Connection): Promise<boolean> {
  if (!connection.db) throw new Error('the document store is not connected');
  const info = await connection.db.admin().command({ buildInfo: 1 });
  return 'ferretdbVersion' in info;
}
