export { adsService, createAdsModule } from './service';
export type { AdsAdapters, AdsModule } from './service';
export { adsConfig } from './config';
export type { AdsConfig } from './config';
