import type { ServiceDefinition } from '@underdog/platform';
import { adsConfig, type AdsConfig } from './config';

/** Advertisements and their catalog topic (see README). Skeleton: owns its collection. */
export const adsService: ServiceDefinition<AdsConfig> = {
  name: 'ads',
  defaultPort: 8084,
  needs: ['documents'],
  config: adsConfig,
  create: ({ infrastructure }) => {
    infrastructure.documents.collection({
      name: 'advertisements',
      indexes: [{ fields: { displayPosition: 1, isActive: 1 } }],
    });
    return { components: [] };
  },
};
