export { gameEngineService } from './service';
