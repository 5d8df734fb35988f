import type { Logger } from '@underdog/kit';
import type { Infrastructure, ServiceDefinition, ServiceModule } from '@underdog/platform';
import { AdvertisementStore } from './adapters/advertisement-store';
import { CatalogTopic } from './adapters/catalog-topic';
import { Advertisements } from './advertisements';
import { CatalogSync } from './catalog-sync';
import { adsConfig, type AdsConfig } from './config';
import { systemClock, type Clock } from './domain/advertisement';
import { adsRoutes } from './rpc';

export interface AdsModuleOptions {
  infrastructure: Pick<Infrastructure, 'documents' | 'bus'>;
  logger: Logger;
  config: AdsConfig;
  clock?: Clock;
}

export interface AdsModule extends ServiceModule {
  advertisements: Advertisements;
  catalog: CatalogSync;
}

/** The service's parts wired together; tests call it directly to pass a clock. */
export function createAdsModule(options: AdsModuleOptions): AdsModule {
  const store = new AdvertisementStore(options.infrastructure.documents);
  const catalog = new CatalogSync(
    store,
    new CatalogTopic(options.infrastructure.bus),
    options.logger,
  );
  const advertisements = new Advertisements({
    store,
    catalog,
    clock: options.clock ?? systemClock,
  });
  return {
    advertisements,
    catalog,
    components: [catalog.resyncComponent(options.config.catalog.resyncIntervalMs)],
    registerRpc: adsRoutes(advertisements),
  };
}

/** Advertisements: admin CRUD, listing by position, and the compacted `ads.catalog` topic. */
export const adsService: ServiceDefinition<AdsConfig> = {
  name: 'ads',
  defaultPort: 8084,
  needs: ['documents', 'bus'],
  config: adsConfig,
  create: ({ infrastructure, logger }, config) =>
    createAdsModule({ infrastructure, logger, config }),
};
