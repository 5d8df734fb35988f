import { Declarations } from './declarations';
import { MemoryCollection } from './memory-collection';
import { validationModels } from './schema';
import type { Collection, CollectionDefinition, DocumentStore, Identified } from './port';

/**
 * The standalone-mode document store. Unique indexes hold from the moment a collection is
 * declared, so `init()` has nothing left to do.
 */
export function createMemoryDocumentStore(): DocumentStore {
  const collections = new Declarations<MemoryCollection<Identified>>();
  const validationModel = validationModels();
  let closed = false;
  const ensureOpen = (): void => {
    if (closed) throw new Error('the document store is closed');
  };

  return {
    collection: <T extends Identified>(definition: CollectionDefinition<T>): Collection<T> => {
      const collection = collections.entryOf(definition, () => {
        const created = new MemoryCollection<T>(
          definition.name,
          definition.indexes ?? [],
          validationModel(definition),
          ensureOpen,
        );
        return created as unknown as MemoryCollection<Identified>;
      });
      return collection as unknown as Collection<T>;
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
