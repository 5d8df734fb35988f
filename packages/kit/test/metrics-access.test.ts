import type { RequestHandler } from 'express';
import {
  ComponentGroup,
  createHttpApp,
  createLogger,
  createMetricsApp,
  createMetricsRegistry,
  finishHttpApp,
  httpServerComponent,
} from '../src';

// Issue 24 I4: /metrics is not for the public. On a process's own port it answers loopback
// clients only (a scrape from the pod or the developer's machine); Prometheus scrapes the
// separate metrics port (METRICS_PORT) that the chart keeps off the Service's public port.

const logger = createLogger({ service: 'test', level: 'silent' });

/** Lets a test pose as a client at another address (every test connection is loopback). */
const peerFromHeader: RequestHandler = (req, _res, next) => {
  const peer = req.get('x-test-peer');
  if (peer) Object.defineProperty(req.socket, 'remoteAddress', { value: peer, configurable: true });
  next();
};

describe('/metrics access', () => {
  const registry = createMetricsRegistry('test');
  const app = createHttpApp({
    logger,
    registry,
    readiness: async () => ({ ready: true, checks: {} }),
    middleware: [peerFromHeader],
  });
  finishHttpApp(app, logger);
  const main = httpServerComponent(app, { port: 0, host: '127.0.0.1' });
  const metrics = httpServerComponent(createMetricsApp({ logger, registry }), {
    port: 0,
    host: '127.0.0.1',
  });
  const group = new ComponentGroup(logger, [main, metrics]);
  beforeAll(() => group.start());
  afterAll(() => group.stop());

  const scrape = (port: number, peer?: string) =>
    fetch(`http://127.0.0.1:${port}/metrics`, {
      headers: { connection: 'close', ...(peer ? { 'x-test-peer': peer } : {}) },
    });

  it.each(['127.0.0.1', '::1', '::ffff:127.0.0.1'])(
    'answers a loopback client (%s) on the main port',
    async (peer) => {
      const response = await scrape(main.port(), peer);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('process_cpu_user_seconds_total');
    },
  );

  it.each(['203.0.113.7', '10.0.0.12', '2001:db8::1', '::ffff:203.0.113.7'])(
    'answers another client (%s) on the main port with 404, as if there were nothing there',
    async (peer) => {
      const response = await scrape(main.port(), peer);
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain('process_cpu');
    },
  );

  it('serves the metrics port to Prometheus wherever it scrapes from, and nothing else there', async () => {
    const response = await scrape(metrics.port(), '10.0.0.12');
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('process_cpu_user_seconds_total');
    expect((await fetch(`http://127.0.0.1:${metrics.port()}/api/user`)).status).toBe(404);
  });
});
