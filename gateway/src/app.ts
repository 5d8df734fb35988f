import express, { type Express } from 'express';
import {
  createHttpApp,
  finishHttpApp,
  type Logger,
  type ReadinessReport,
  type Registry,
} from '@underdog/kit';
import type { GatewayClients } from './clients';
import { createRestRouter } from './rest';

export interface GatewayAppOptions {
  logger: Logger;
  registry: Registry;
  clients: GatewayClients;
  readiness: () => Promise<ReadinessReport>;
  /** The built web app to serve at `/`, when there is one. */
  webRoot?: string;
}

/** The gateway's HTTP surface, the same in both run modes. */
export function createGatewayApp(options: GatewayAppOptions): Express {
  const app = createHttpApp(options);
  app.use(express.json({ limit: '100kb' }));
  app.use(createRestRouter(options.clients));
  if (options.webRoot) app.use(express.static(options.webRoot));
  finishHttpApp(app, options.logger);
  return app;
}
