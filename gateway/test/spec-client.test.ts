import { startTestGateway, validPassword, type TestGateway } from './support';

/**
 * A client written to the product spec's calling convention: every request carries
 * `X-Device-ID`, and a JSON `Content-Type` only when there is a body.
 */
function specClient(gateway: TestGateway) {
  let cookie = '';
  return {
    set cookie(value: string) {
      cookie = value;
    },
    get cookie() {
      return cookie;
    },
    async call(method: string, path: string, body?: unknown) {
      const headers: Record<string, string> = { 'x-device-id': 'spec-device-1' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (cookie) headers.cookie = cookie;
      const response = await fetch(gateway.url(path), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const setCookie = response.headers.get('set-cookie')?.split(';', 1)[0];
      if (setCookie) cookie = setCookie;
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
  };
}

describe("the spec's client: no Content-Type without a body", () => {
  let gateway: TestGateway;
  const deleted: string[] = [];
  beforeAll(async () => {
    gateway = await startTestGateway({
      tournament: {
        deleteTournament: ({ id }) => {
          deleted.push(`tournament ${id}`);
          return {};
        },
      },
      ads: {
        deleteAdvertisement: ({ id }) => {
          deleted.push(`advertisement ${id}`);
          return {};
        },
      },
    });
  });
  afterAll(() => gateway.stop());

  it('logs out, after which the old cookie is worth nothing (401)', async () => {
    const client = specClient(gateway);
    const login = await client.call('POST', '/api/login', {
      email: 'ann@example.com',
      password: validPassword,
    });
    expect(login.status).toBe(200);
    const oldCookie = client.cookie;
    expect(oldCookie).toMatch(/^underdog_session=session-/);

    const logout = await client.call('POST', '/api/logout');
    expect(logout).toEqual({ status: 200, body: { message: 'Logged out' } });

    client.cookie = oldCookie;
    const after = await client.call('GET', '/api/user');
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('UNAUTHENTICATED');
  });

  it('deletes a tournament and an advertisement', async () => {
    const client = specClient(gateway);
    await client.call('POST', '/api/login', { email: 'ann@example.com', password: validPassword });

    const tournament = await client.call('DELETE', '/api/tournaments/t-1');
    const ad = await client.call('DELETE', '/api/admin/advertisements/ad-1');

    expect([tournament.status, ad.status]).toEqual([200, 200]);
    expect(tournament.body).toEqual({ message: 'Tournament deleted successfully.' });
    expect(ad.body).toEqual({ message: 'Advertisement deleted successfully.' });
    expect(deleted).toEqual(['tournament t-1', 'advertisement ad-1']);
  });

  it.each([
    ['a form post', 'application/x-www-form-urlencoded', 'email=a%40b.c&password=x'],
    ['a text/plain post', 'text/plain', '{"email":"ann@example.com"}'],
    ['a multipart post', 'multipart/form-data; boundary=x', '--x--'],
  ])('still refuses %s from another site (403 CSRF_REJECTED)', async (_name, type, body) => {
    const response = await fetch(gateway.url('/api/logout'), {
      method: 'POST',
      headers: { 'content-type': type, 'x-device-id': 'spec-device-1' },
      body,
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe('CSRF_REJECTED');
  });
});
