import { runServiceProcess } from '@underdog/platform';
import { authService } from './service';

void runServiceProcess(authService, process.env);
