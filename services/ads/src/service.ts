import { systemClock, type Clock } from '@underdog/kit';
import type { ServiceContext, ServiceDefinition, ServiceModule } from '@underdog/platform';
import { AdvertisementRepository } from './adapters/advertisement-repository';
import { CatalogTopic } from './adapters/catalog-topic';
import { Advertisements } from './advertisements';
import { createCatalogSync, type CatalogSync } from './catalog-sync';
import { adsConfig, type AdsConfig } from './config';
import { adsRoutes } from './rpc';

/** What a caller may hand in instead of the defaults (tests). */
export interface AdsAdapters {
  /** The time stamps of changes; default: the system clock. */
  clock?: Clock;
}

/** The module, with the parts tests and in-process callers reach for. */
export interface AdsModule extends ServiceModule {
  advertisements: Advertisements;
  catalog: CatalogSync;
}

/** Advertisements: admin CRUD, listing by position, and the compacted `ads.catalog` topic. */
export function createAdsModule(
  { infrastructure, logger, nodeEnv }: ServiceContext,
  config: AdsConfig,
  adapters: AdsAdapters = {},
): AdsModule {
  const repository = new AdvertisementRepository(infrastructure.documents);
  const catalog = createCatalogSync(
    repository,
    new CatalogTopic(infrastructure.bus),
    logger,
    config.catalog.resyncIntervalMs,
  );
  const advertisements = new Advertisements({
    repository,
    catalog,
    clock: adapters.clock ?? systemClock,
    allowPlainHttp: nodeEnv !== 'production',
  });
  return {
    advertisements,
    catalog,
    components: [catalog.component],
    registerRpc: adsRoutes(advertisements),
  };
}

export const adsService: ServiceDefinition<AdsConfig> = {
  name: 'ads',
  defaultPort: 8084,
  needs: ['documents', 'bus'],
  config: adsConfig,
  create: (context, config) => createAdsModule(context, config),
};
