import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, {
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { Logger } from 'pino';
import { Histogram, type Registry } from 'prom-client';
import { isAppError } from './errors';
import type { Component, ReadinessReport } from './lifecycle';
import { REQUEST_ID_HEADER, acceptRequestId, runWithRequestId } from './request-context';

export interface HttpAppOptions {
  logger: Logger;
  registry: Registry;
  readiness: () => Promise<ReadinessReport>;
  /** Middleware every response goes through, health endpoints included (e.g. security headers). */
  middleware?: RequestHandler[];
}

/**
 * An express app with the three endpoints every process has: `/healthz` (the process is alive),
 * `/readyz` (every component is ready: 503 with the failing checks otherwise) and `/metrics`.
 * Every request gets a request id first (`requestIdMiddleware`). Routes are added by the caller;
 * `finishHttpApp` adds the JSON 404 and error handlers last.
 */
export function createHttpApp({
  logger,
  registry,
  readiness,
  middleware = [],
}: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestIdMiddleware);
  for (const handler of middleware) app.use(handler);
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
      const seconds = end({ method: req.method, route, status: String(res.statusCode) });
      logRequest(logger, req, res, route, seconds);
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
  // Not for the public: loopback clients only here; Prometheus scrapes `createMetricsApp`'s port.
  app.get('/metrics', (req, res, next) => {
    if (!isLoopback(req.socket.remoteAddress)) {
      next();
      return;
    }
    void serveMetrics(registry, res).catch(next);
  });
  return app;
}

/**
 * The separate metrics port (`METRICS_PORT`) of a distributed process: `/metrics` for whoever
 * reaches it, which the deployment keeps to Prometheus (the chart exposes it only to the
 * ServiceMonitor, never through the public Service port or the ingress); nothing else.
 */
export function createMetricsApp({
  logger,
  registry,
}: Pick<HttpAppOptions, 'logger' | 'registry'>) {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', (_req, res, next) => {
    void serveMetrics(registry, res).catch(next);
  });
  finishHttpApp(app, logger);
  return app;
}

async function serveMetrics(registry: Registry, res: Response): Promise<void> {
  res.type(registry.contentType).send(await registry.metrics());
}

/** Whether a socket's peer is this host: 127.0.0.0/8 or ::1, IPv4-mapped or not. */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === '::1';
}

/**
 * Gives the request an id: a sane incoming `X-Request-Id` is adopted, else one is made up. It is
 * echoed in the response header, and everything the request does (handlers, RPC calls, events
 * published, log lines) runs with it as the current request id.
 */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const requestId = acceptRequestId(req.get(REQUEST_ID_HEADER));
  res.locals.requestId = requestId;
  res.setHeader(REQUEST_ID_HEADER, requestId);
  runWithRequestId(requestId, next);
}

/** Probes and scrapes: every few seconds, so their lines are debug. */
const quietPaths = new Set(['/healthz', '/readyz', '/metrics']);
/** A Connect procedure, `/package.Service/Method`: safe to log as it is (no ids, no secrets). */
const rpcPath = /^\/[A-Za-z_][\w.]*\.[A-Za-z_]\w*\/[A-Za-z_]\w*$/;

/**
 * One line per request, with its id (the `requestId` every other line of it carries too), so a
 * call can be followed from the gateway into the services it called. The path is the route's
 * pattern or the RPC procedure, never the raw URL: a path can carry a link token.
 */
function logRequest(
  logger: Logger,
  req: Request,
  res: Response,
  route: string,
  seconds: number,
): void {
  const quiet = quietPaths.has(req.path);
  if (!logger.isLevelEnabled(quiet ? 'debug' : 'info')) return;
  const path = route !== 'unmatched' ? route : rpcPath.test(req.path) ? req.path : 'unmatched';
  const fields = {
    requestId: requestIdOf(res),
    method: req.method,
    path,
    status: res.statusCode,
    durationMs: Math.round(seconds * 1000),
  };
  if (quiet) logger.debug(fields, 'request');
  else logger.info(fields, 'request');
}

function requestIdOf(res: Response): string | undefined {
  const requestId: unknown = res.locals.requestId;
  return typeof requestId === 'string' ? requestId : undefined;
}

/** The JSON error body every process answers with; `requestId` lets a caller report the call. */
export interface ErrorBody {
  message: string;
  code: string;
  requestId?: string;
}

function sendError(res: Response, status: number, body: Omit<ErrorBody, 'requestId'>): void {
  const requestId = requestIdOf(res);
  res.status(status).json(requestId === undefined ? body : { ...body, requestId });
}

/**
 * JSON 404 for unknown routes and one error shape `{ message, code, requestId }` for everything
 * thrown. A 429 carries `Retry-After`; a body over the parser's limit is 413 `PAYLOAD_TOO_LARGE`.
 */
export function finishHttpApp(app: Express, logger: Logger): void {
  app.use((_req: Request, res: Response) => {
    sendError(res, 404, { message: 'Not found', code: 'NOT_FOUND' });
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    runWithRequestId(requestIdOf(res) ?? acceptRequestId(undefined), () => {
      renderError(error, req, res, logger);
    });
  });
}

function renderError(error: unknown, _req: Request, res: Response, logger: Logger): void {
  if (isAppError(error)) {
    if (error.retryAfterSeconds !== undefined) {
      res.setHeader('retry-after', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
    }
    sendError(res, error.status, { message: error.message, code: error.publicCode });
    return;
  }
  const status = httpStatusOf(error);
  if (status === 413) {
    sendError(res, 413, { message: 'Request body too large', code: 'PAYLOAD_TOO_LARGE' });
    return;
  }
  if (status !== undefined && status >= 400 && status < 500) {
    // express.json() parse failures and the like arrive here with a 4xx status.
    sendError(res, status, { message: 'Malformed request', code: 'BAD_REQUEST' });
    return;
  }
  logger.error({ err: error }, 'unhandled request error');
  sendError(res, 500, { message: 'Internal server error', code: 'INTERNAL' });
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
