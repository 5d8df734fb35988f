import { Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per process, labelled with the service, with Node's default metrics. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export type { Registry };
