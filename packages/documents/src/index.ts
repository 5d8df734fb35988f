export {
  DuplicateKeyError,
  type Collection,
  type CollectionDefinition,
  type DocumentStore,
  type Filter,
  type FindOptions,
  type Identified,
  type IndexDefinition,
  type Operators,
  type Sort,
  type Update,
  type UpdateOneOptions,
} from './port';
export { createMemoryDocumentStore } from './memory';
export { createMongoDocumentStore, type MongoDocumentStoreOptions } from './mongo';
