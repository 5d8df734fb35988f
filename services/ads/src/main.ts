import { runServiceProcess } from '@underdog/platform';
import { adsService } from './service';

void runServiceProcess(adsService, process.env);
