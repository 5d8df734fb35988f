import { Writable } from 'node:stream';
import express from 'express';
import {
  AppError,
  ComponentGroup,
  createHttpApp,
  createLogger,
  createMetricsRegistry,
  finishHttpApp,
  httpServerComponent,
} from '../src';

const logger = createLogger({ service: 'test', level: 'silent' });

const errorBody = (message: string, code: string) => ({
  message,
  code,
  requestId: expect.any(String) as unknown,
});

describe('the HTTP app every process serves', () => {
  let ready = true;
  const registry = createMetricsRegistry('test');
  const app = createHttpApp({
    logger,
    registry,
    readiness: async () => ({ ready, checks: { kafka: ready } }),
  });
  app.use(express.json());
  app.post('/echo', (req, res) => void res.json(req.body));
  app.get('/conflict', () => {
    throw new AppError('CONFLICT', 'Already registered');
  });
  app.get('/boom', () => {
    throw new Error('secret internals');
  });
  finishHttpApp(app, logger);
  const http = httpServerComponent(app, { port: 0, host: '127.0.0.1' });
  const group = new ComponentGroup(logger, [http]);
  const url = (path: string) => `http://127.0.0.1:${http.port()}${path}`;

  beforeAll(() => group.start());
  afterAll(() => group.stop());

  it('answers /healthz with 200', async () => {
    const response = await fetch(url('/healthz'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz with 200 when ready and 503 with the failing checks when not', async () => {
    ready = true;
    expect((await fetch(url('/readyz'))).status).toBe(200);
    ready = false;
    const response = await fetch(url('/readyz'));
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ ready: false, checks: { kafka: false } });
    ready = true;
  });

  it('serves Prometheus metrics including request durations', async () => {
    await fetch(url('/healthz'));
    const text = await (await fetch(url('/metrics'))).text();
    expect(text).toContain('http_request_duration_seconds');
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('turns an AppError into its status with { message, code }', async () => {
    const response = await fetch(url('/conflict'));
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual(errorBody('Already registered', 'CONFLICT'));
  });

  it('answers 500 without leaking internals for unexpected errors', async () => {
    const response = await fetch(url('/boom'));
    expect(response.status).toBe(500);
    const body = await response.text();
    expect(body).not.toContain('secret internals');
    expect(JSON.parse(body)).toEqual(errorBody('Internal server error', 'INTERNAL'));
  });

  it('answers malformed JSON with 400 and unknown routes with a JSON 404', async () => {
    const malformed = await fetch(url('/echo'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"oops":',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual(errorBody('Malformed request', 'BAD_REQUEST'));
    const missing = await fetch(url('/nowhere'));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual(errorBody('Not found', 'NOT_FOUND'));
  });
});

describe('the request log line', () => {
  type Line = Record<string, unknown>;
  const lines: Line[] = [];
  const waiting: Array<{ match: (line: Line) => boolean; found: () => void }> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const line = JSON.parse(chunk.toString()) as Line;
      lines.push(line);
      for (const waiter of waiting.filter(({ match }) => match(line))) waiter.found();
      done();
    },
  });
  /** Resolves once a request line for `path` (the logged route) is written: the marker. */
  const loggedRequest = (path: string) =>
    new Promise<void>((found) => {
      const match = (line: Line) => line.msg === 'request' && line.path === path;
      if (lines.some(match)) found();
      else waiting.push({ match, found });
    });
  const logged = createLogger({ service: 'test', level: 'info', destination });
  const app = createHttpApp({
    logger: logged,
    registry: createMetricsRegistry('test-log'),
    readiness: async () => ({ ready: true, checks: {} }),
  });
  app.get('/links/:token', () => {
    throw new AppError('BAD_REQUEST', 'Invalid link');
  });
  app.post('/underdog.auth.v1.AuthService/VerifyEmail', (_req, res) => void res.json({}));
  finishHttpApp(app, logged);
  const http = httpServerComponent(app, { port: 0, host: '127.0.0.1' });
  const group = new ComponentGroup(logged, [http]);
  const url = (path: string) => `http://127.0.0.1:${http.port()}${path}`;
  const requestLines = () => lines.filter((line) => line.msg === 'request');

  beforeAll(() => group.start());
  afterAll(() => group.stop());
  beforeEach(() => lines.splice(0));

  it('logs each request once with its request id, method, route pattern and status', async () => {
    const response = await fetch(url('/links/secret-token?x=1'), {
      headers: { 'x-request-id': 'req-42' },
    });
    expect(response.status).toBe(400);
    await loggedRequest('/links/:token');

    expect(requestLines()).toEqual([
      expect.objectContaining({
        level: 30,
        requestId: 'req-42',
        method: 'GET',
        path: '/links/:token',
        status: 400,
        durationMs: expect.any(Number) as unknown,
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('secret-token');
  });

  it('names an RPC by its procedure, and an unknown path only as unmatched', async () => {
    await fetch(url('/underdog.auth.v1.AuthService/VerifyEmail'), { method: 'POST' });
    await fetch(url('/verify-email/secret-token'));
    await loggedRequest('unmatched');

    expect(requestLines().map(({ path, status }) => ({ path, status }))).toEqual([
      { path: '/underdog.auth.v1.AuthService/VerifyEmail', status: 200 },
      { path: 'unmatched', status: 404 },
    ]);
    expect(JSON.stringify(lines)).not.toContain('secret-token');
  });

  it('keeps probes and scrapes out of the info log', async () => {
    await fetch(url('/healthz'));
    await fetch(url('/readyz'));
    await fetch(url('/metrics'));
    // The marker: a request that is logged, made after the probes; once its line is written,
    // theirs would have been.
    await fetch(url('/after-the-probes'));
    await loggedRequest('unmatched');

    expect(requestLines().map(({ path }) => path)).toEqual(['unmatched']);
  });
});
