import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isWebRoot } from '../src';
import { errorBody, startTestGateway, type TestGateway } from './support';

const indexHtml = '<!doctype html><title>Underdog</title><div id="root"></div>';

describe('the web app served by the gateway', () => {
  let webRoot: string;
  let gateway: TestGateway;
  beforeAll(async () => {
    webRoot = mkdtempSync(join(tmpdir(), 'web-root-'));
    mkdirSync(join(webRoot, 'assets'));
    mkdirSync(join(webRoot, 'images'));
    writeFileSync(join(webRoot, 'index.html'), indexHtml);
    writeFileSync(join(webRoot, 'assets', 'index-abc123.js'), 'console.log(1)');
    writeFileSync(join(webRoot, 'images', 'sample-0.svg'), '<svg/>');
    gateway = await startTestGateway({ webRoot });
  });
  afterAll(async () => {
    await gateway.stop();
    rmSync(webRoot, { recursive: true, force: true });
  });

  it('serves index.html at / and never lets it be cached', async () => {
    const response = await fetch(gateway.url('/'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(await response.text()).toBe(indexHtml);
  });

  it.each(['/profile', '/game/t-1', '/verify-email/abc', '/live', '/no/such/page'])(
    'answers the client route %s with index.html (SPA fallback)',
    async (path) => {
      const response = await fetch(gateway.url(path));
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(indexHtml);
    },
  );

  it('serves hashed assets as immutable and the sample images as files', async () => {
    const asset = await fetch(gateway.url('/assets/index-abc123.js'));
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await asset.text()).toBe('console.log(1)');
    const image = await fetch(gateway.url('/images/sample-0.svg'));
    expect(image.status).toBe(200);
  });

  it('answers a missing asset with the JSON 404, not index.html', async () => {
    const response = await fetch(gateway.url('/assets/missing.js'));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual(errorBody('Not found', 'NOT_FOUND'));
  });

  it.each(['/api/nope', '/graphql/x', '/ws/x', '/healthz/x'])(
    'leaves %s to the API (JSON 404)',
    async (path) => {
      const response = await fetch(gateway.url(path));
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
    },
  );

  it('leaves the API and health routes untouched', async () => {
    expect(await (await fetch(gateway.url('/healthz'))).json()).toEqual({ status: 'ok' });
    const time = await fetch(gateway.url('/api/time'));
    expect(Object.keys((await time.json()) as object)).toEqual(['serverTime']);
  });

  it('knows a web root by its index.html', () => {
    expect(isWebRoot(webRoot)).toBe(true);
    expect(isWebRoot(join(webRoot, 'assets'))).toBe(false);
  });
});
