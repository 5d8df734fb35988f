import { runServiceProcess } from '@underdog/platform';
import { gatewayService } from './module';

void runServiceProcess(gatewayService, process.env);
