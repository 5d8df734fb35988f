import { MemoryCollection } from './memory-collection';
import { validationModels } from './schema';
import type { Schema } from 'mongoose';
import type { Collection, CollectionDefinition, DocumentStore, Identified } from './port';

interface Declared {
  /** The definition as declared, to refuse a second, different one under the same name. */
  schema: Schema;
  indexes: string;
  collection: MemoryCollection<Identified>;
}

/**
 * The standalone-mode document store. Unique indexes hold from the moment a collection is
 * declared, so `init()` has nothing left to do.
 */
export function createMemoryDocumentStore(): DocumentStore {
  const collections = new Map<string, Declared>();
  const validationModel = validationModels();
  let closed = false;
  const ensureOpen = (): void => {
    if (closed) throw new Error('the document store is closed');
  };

  return {
    collection: <T extends Identified>(definition: CollectionDefinition<T>): Collection<T> => {
      const indexes = JSON.stringify(definition.indexes ?? []);
      let declared = collections.get(definition.name);
      if (!declared) {
        const collection = new MemoryCollection<T>(
          definition.name,
          definition.indexes ?? [],
          validationModel(definition),
          ensureOpen,
        );
        declared = {
          schema: definition.schema,
          indexes,
          collection: collection as unknown as MemoryCollection<Identified>,
        };
        collections.set(definition.name, declared);
      } else if (declared.indexes !== indexes || declared.schema !== definition.schema) {
        throw new Error(`collection ${definition.name} is already declared differently`);
      }
      return declared.collection as unknown as Collection<T>;
    },
    init: async () => {
      ensureOpen();
    },
    ping: async () => {
      ensureOpen();
    },
    close: async () => {
      closed = true;
    },
  };
}
