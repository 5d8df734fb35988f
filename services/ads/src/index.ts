export { adsService, createAdsModule } from './service';
export type { AdsModule, AdsModuleOptions } from './service';
export { adsConfig } from './config';
export type { AdsConfig } from './config';
