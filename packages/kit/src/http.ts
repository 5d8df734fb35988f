import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { Histogram, type Registry } from 'prom-client';
import { isAppError } from './errors';
import type { Component, ReadinessReport } from './lifecycle';

export interface HttpAppOptions {
  logger: Logger;
  registry: Registry;
  readiness: () => Promise<ReadinessReport>;
}

/**
 * An express app with the three endpoints every process has: `/healthz` (the process is alive),
 * `/readyz` (every component is ready: 503 with the failing checks otherwise) and `/metrics`.
 * Routes are added by the caller; `finishHttpApp` adds the JSON 404 and error handlers last.
 */
export function createHttpApp({ registry, readiness }: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  app.use((req, res, next) => {
    const end = duration.startTimer();
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const report = await readiness();
    res.status(report.ready ? 200 : 503).json(report);
  });
  app.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
  return app;
}

/** JSON 404 for unknown routes and one error shape `{ message, code }` for everything thrown. */
export function finishHttpApp(app: Express, logger: Logger): void {
  app.use((_req: Request, res: Response) => {
    res.status(404).json({ message: 'Not found', code: 'NOT_FOUND' });
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (isAppError(error)) {
      res.status(error.status).json({ message: error.message, code: error.publicCode });
      return;
    }
    const status = httpStatusOf(error);
    if (status !== undefined && status >= 400 && status < 500) {
      // express.json() parse failures and body-size limits arrive here with a 4xx status.
      res.status(status).json({ message: 'Malformed request', code: 'BAD_REQUEST' });
      return;
    }
    logger.error({ err: error }, 'unhandled request error');
    res.status(500).json({ message: 'Internal server error', code: 'INTERNAL' });
  });
}

function httpStatusOf(error: unknown): number | undefined {
  if (typeof error === 'object' && error !== null && 'status' in error) {
    const status = (error as { status: unknown }).status;
    return typeof status === 'number' ? status : undefined;
  }
  return undefined;
}

export interface HttpServerComponent extends Component {
  /** The bound port; useful when listening on port 0. */
  port(): number;
  server(): Server;
}

/** The HTTP listener as a lifecycle component: listens on start, drains and closes on stop. */
export function httpServerComponent(
  app: RequestListener,
  options: {
    port: number;
    host: string;
    /** Logs the bound address once listening, so operators and scripts can find the port. */
    logger?: Logger;
    onServer?: (server: Server) => void;
  },
): HttpServerComponent {
  let server: Server | undefined;
  return {
    name: 'http',
    async start() {
      server = createServer(app);
      options.onServer?.(server);
      server.listen(options.port, options.host);
      await once(server, 'listening');
      const { port } = server.address() as AddressInfo;
      options.logger?.info(
        { port, url: `http://${displayHost(options.host)}:${port}` },
        'listening',
      );
    },
    async stop() {
      if (!server) return;
      const closing = new Promise<void>((resolve) => server?.close(() => resolve()));
      server.closeIdleConnections();
      // Long-lived connections (WebSockets, keep-alive) would hold close() open forever.
      setTimeout(() => server?.closeAllConnections(), 2_000).unref();
      await closing;
    },
    isReady: () => server?.listening ?? false,
    port() {
      if (!server) throw new Error('http server not started');
      return (server.address() as AddressInfo).port;
    },
    server() {
      if (!server) throw new Error('http server not started');
      return server;
    },
  };
}

function displayHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? 'localhost' : host;
}
