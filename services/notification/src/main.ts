import { runServiceProcess } from '@underdog/platform';
import { notificationService } from './service';

void runServiceProcess(notificationService, process.env);
