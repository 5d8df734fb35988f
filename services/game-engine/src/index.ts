export { gameEngineConfig, type GameEngineConfig } from './config';
export {
  createGameEngineApp,
  createGameEngineService,
  gameEngineService,
  type GameEngineApp,
  type GameEngineOptions,
} from './service';
/** The records' collections, for tests that read what the engine stored. */
export { votesCollection, type VoteDocument } from './persistence/collections';
