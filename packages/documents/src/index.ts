export {
  defineCollection,
  DocumentValidationError,
  DuplicateKeyError,
  type Collection,
  type CollectionDefinition,
  type DocumentOf,
  type DocumentStore,
  type Filter,
  type FindOptions,
  type Identified,
  type InferDocument,
  type IndexDefinition,
  type InsertManyOptions,
  type Operators,
  type Sort,
  type Update,
  type UpdateOneOptions,
} from './port';
export { maxCodePoints, required } from './schema';
export { insertOnce, withoutEmpty } from './writes';
export { createMemoryDocumentStore } from './memory';
export { createMongoDocumentStore, type MongoDocumentStoreOptions } from './mongo';
/** Collections declare their schemas with it (see `defineCollection`). */
export { Schema } from 'mongoose';
