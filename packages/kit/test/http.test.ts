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
