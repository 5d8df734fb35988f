// The gateway's REST API as the spec's client calls it: every request carries X-Device-ID, a JSON
// Content-Type only when there is a body, and each player has a cookie jar of its own (login and
// register rotate the session the client came with, so players must never share a jar).
import http from 'k6/http';

export function request(base, method, path, { body, session, deviceId, tags } = {}) {
  const headers = { 'X-Device-ID': (session && session.deviceId) || deviceId || 'k6-anonymous' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (session && session.cookie) headers.Cookie = session.cookie;
  return http.request(method, `${base}${path}`, body === undefined ? null : JSON.stringify(body), {
    headers,
    jar: new http.CookieJar(),
    tags: tags || { name: path },
  });
}

/** Many requests at once; each item is `[method, path, options]` as for `request`. */
export function batch(base, items, tags) {
  return http.batch(
    items.map(([method, path, options = {}]) => {
      const headers = {
        'X-Device-ID':
          (options.session && options.session.deviceId) || options.deviceId || 'k6-anonymous',
      };
      if (options.body !== undefined) headers['Content-Type'] = 'application/json';
      if (options.session && options.session.cookie) headers.Cookie = options.session.cookie;
      return {
        method,
        url: `${base}${path}`,
        body: options.body === undefined ? null : JSON.stringify(options.body),
        params: { headers, jar: new http.CookieJar(), tags: tags || { name: path } },
      };
    }),
  );
}

/** `name=value` of the session cookie a response set (underdog_session or __Host-underdog_session). */
export function sessionCookieOf(response) {
  for (const [name, cookies] of Object.entries(response.cookies || {})) {
    if (/underdog_session$/.test(name) && cookies.length > 0 && cookies[0].value)
      return `${name}=${cookies[0].value}`;
  }
  return undefined;
}

export function expectStatus(response, status, what) {
  if (response.status !== status) {
    throw new Error(`${what}: HTTP ${response.status} ${String(response.body).slice(0, 300)}`);
  }
  return response;
}

/**
 * Milliseconds to add to this machine's clock to get the server's (GET /api/time, corrected by
 * half the round trip), so that latencies from a server timestamp hold on a remote cluster too.
 */
export function serverClockOffset(base) {
  let best = { rtt: Infinity, offset: 0 };
  for (let i = 0; i < 5; i += 1) {
    const sent = Date.now();
    const response = request(base, 'GET', '/api/time');
    const received = Date.now();
    expectStatus(response, 200, 'GET /api/time');
    const server = Date.parse(response.json('serverTime'));
    const rtt = received - sent;
    if (rtt < best.rtt) best = { rtt, offset: server - (sent + received) / 2 };
  }
  return best.offset;
}
