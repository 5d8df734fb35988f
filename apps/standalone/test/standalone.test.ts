import { createLogger } from '@underdog/kit';
import { createStandalone, type Standalone } from '../src';
import { errorBody } from './support';

describe('the standalone game (every service in one process, in-memory adapters)', () => {
  let standalone: Standalone;
  const url = (path: string) => `http://127.0.0.1:${standalone.http.port()}${path}`;

  beforeAll(async () => {
    standalone = await createStandalone({
      logger: createLogger({ service: 'underdog', level: 'silent' }),
      env: {},
      port: 0,
      host: '127.0.0.1',
      nodeEnv: 'test',
    });
    await standalone.group.start();
  });
  afterAll(() => standalone.group.stop());

  it('is healthy and ready', async () => {
    expect((await fetch(url('/healthz'))).status).toBe(200);
    const ready = await fetch(url('/readyz'));
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true });
  });

  it('answers GET /api/time from the tournament service through the in-process Connect transport', async () => {
    const before = Date.now();
    const response = await fetch(url('/api/time'));
    const after = Date.now();
    expect(response.status).toBe(200);
    const { serverTime } = (await response.json()) as { serverTime: string };
    expect(serverTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const time = Date.parse(serverTime);
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(after);
  });

  it('answers unknown API routes with a JSON 404', async () => {
    const response = await fetch(url('/api/nothing-here'));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual(errorBody('Not found', 'NOT_FOUND'));
  });
});
