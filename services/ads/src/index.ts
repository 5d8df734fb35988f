export { adsService } from './service';
