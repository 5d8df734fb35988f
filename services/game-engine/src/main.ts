import { runServiceProcess } from '@underdog/platform';
import { gameEngineService } from './service';

void runServiceProcess(gameEngineService, process.env);
