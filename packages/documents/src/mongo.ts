import mongoose, { type Connection } from 'mongoose';
import { Declarations } from './declarations';
import { MongoCollection, type UniqueIndex } from './mongo-collection';
import { LockedMongoCollection } from './mongo-locked-collection';
import { DocumentLocks, LOCKS_COLLECTION, needsDocumentLocks } from './mongo-locks';
import { storedSchema, type StoredDocument, type StoredModel } from './schema';
import {
  indexName,
  type Collection,
  type CollectionDefinition,
  type DocumentStore,
  type Identified,
} from './port';

export interface MongoDocumentStoreOptions {
  /** `mongodb://host:port/[db]` — MongoDB or FerretDB. */
  url: string;
  /** Overrides the database named in the URL. */
  dbName?: string;
  /** How long to wait for a server before an operation (or startup) fails. */
  serverSelectionTimeoutMs?: number;
}

interface Declared {
  model: StoredModel;
  collection: MongoCollection<Identified>;
}

/** Connects before resolving, so a wrong URL or a dead server fails at startup. */
export async function createMongoDocumentStore(
  options: MongoDocumentStoreOptions,
): Promise<DocumentStore> {
  const connection: Connection = mongoose.createConnection(options.url, {
    ...(options.dbName === undefined ? {} : { dbName: options.dbName }),
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMs ?? 10_000,
    // Indexes are built by init(), not as a side effect of declaring a model; and with no
    // connection an operation should fail, not wait in a queue.
    autoIndex: false,
    autoCreate: false,
    bufferCommands: false,
    // A field set to undefined is absent, as it is in the memory adapter, not stored as null.
    ignoreUndefined: true,
  });
  let locks: DocumentLocks | undefined;
  try {
    await connection.asPromise();
    locks = (await needsDocumentLocks(connection)) ? new DocumentLocks(connection) : undefined;
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw error;
  }
  const declared = new Declarations<Declared>();

  return {
    collection: <T extends Identified>(definition: CollectionDefinition<T>): Collection<T> => {
      const entry = declared.entryOf(definition, () => {
        if (definition.name === LOCKS_COLLECTION) {
          throw new Error(`collection name ${LOCKS_COLLECTION} is reserved`);
        }
        const model = connection.model<StoredDocument>(
          definition.name,
          storedSchema(definition),
          definition.name,
        );
        const unique = uniqueIndexes(definition);
        const collection = locks
          ? new LockedMongoCollection<T>(definition.name, model, unique, locks)
          : new MongoCollection<T>(definition.name, model, unique);
        return { model, collection: collection as unknown as MongoCollection<Identified> };
      });
      return entry.collection as unknown as Collection<T>;
    },
    // createIndexes rather than syncIndexes: during a rolling deploy the old version's
    // replicas still rely on indexes the new version no longer declares.
    init: async () => {
      await Promise.all(declared.entries().map(({ model }) => model.createIndexes()));
    },
    ping: async () => {
      if (!connection.db) throw new Error('the document store is not connected');
      await connection.db.command({ ping: 1 });
    },
    close: async () => {
      await connection.close();
    },
  };
}

function uniqueIndexes<T extends Identified>(definition: CollectionDefinition<T>): UniqueIndex[] {
  return (definition.indexes ?? [])
    .filter((index) => index.unique)
    .map((index) => ({ name: indexName(index.fields), paths: Object.keys(index.fields) }));
}
