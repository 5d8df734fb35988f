import { runServiceProcess } from '@underdog/platform';
import { tournamentService } from './service';

void runServiceProcess(tournamentService, process.env);
