export { gameEngineConfig, type GameEngineConfig } from './config';
export {
  createGameEngineModule,
  gameEngineService,
  type GameEngineAdapters,
  type GameEngineModule,
} from './service';
/** The records' collections, for tests that read what the engine stored. */
export { votesCollection, type VoteDocument } from './persistence/collections';
