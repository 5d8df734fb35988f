export { gameEngineConfig, type GameEngineConfig } from './config';
export {
  createGameEngineApp,
  createGameEngineService,
  gameEngineService,
  type GameEngineApp,
  type GameEngineOptions,
} from './service';
