import { errorBody, jsonHeaders, startTestGateway, type TestGateway } from './support';

const rejection = errorBody(
  'Requests must be JSON and carry an X-Device-ID header',
  'CSRF_REJECTED',
);

describe('CSRF defence of the REST mutations', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    fetch(gateway.url(path), { method, headers, body: body ?? '{}' });

  it.each([
    [
      'a form post (urlencoded)',
      { 'content-type': 'application/x-www-form-urlencoded', 'x-device-id': 'd' },
    ],
    ['a text/plain post', { 'content-type': 'text/plain', 'x-device-id': 'd' }],
    ['JSON without X-Device-ID', { 'content-type': 'application/json' }],
    ['JSON with an empty X-Device-ID', { 'content-type': 'application/json', 'x-device-id': ' ' }],
  ])('refuses %s with 403 CSRF_REJECTED before any handler runs', async (_name, headers) => {
    const response = await send('POST', '/api/login', headers);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual(rejection);
    expect(gateway.calls.login).toHaveLength(0);
  });

  it.each(['PUT', 'PATCH', 'DELETE'])('applies to %s under /api too', async (method) => {
    const response = await send(method, '/api/user/profile', { 'content-type': 'text/plain' });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual(rejection);
  });

  it('lets JSON with an X-Device-ID through (charset parameter allowed)', async () => {
    const response = await send(
      'POST',
      '/api/logout',
      { ...jsonHeaders, 'content-type': 'application/json; charset=utf-8' },
      '{}',
    );
    expect(response.status).toBe(200);
  });

  it('lets a bodiless mutation through on X-Device-ID alone (no Content-Type)', async () => {
    const response = await fetch(gateway.url('/api/logout'), {
      method: 'POST',
      headers: { 'x-device-id': 'd' },
    });
    expect(response.status).toBe(200);
  });

  it('refuses a bodiless mutation without X-Device-ID', async () => {
    const response = await fetch(gateway.url('/api/logout'), { method: 'POST' });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual(rejection);
  });

  it('refuses a body without a Content-Type (a browser would call it text/plain)', async () => {
    const response = await fetch(gateway.url('/api/logout'), {
      method: 'POST',
      headers: { 'x-device-id': 'd' },
      body: new Blob(['{}']),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual(rejection);
  });

  it('leaves reads alone', async () => {
    const response = await fetch(gateway.url('/api/time'));
    expect(response.status).toBe(200);
  });
});
