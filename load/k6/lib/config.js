// Settings shared by every k6 script, read from the environment (`k6 run -e NAME=value` or the
// process environment). See load/README.md for the full list.

/** A whole number from the environment, or the default. */
export function intEnv(name, fallback) {
  const raw = __ENV[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`${name} must be a whole number, got "${raw}"`);
  return value;
}

export function stringEnv(name, fallback) {
  const raw = __ENV[name];
  return raw === undefined || raw === '' ? fallback : raw;
}

const LOOPBACK = /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/;

/**
 * The gateway to load: TARGET (an origin, no path). Loopback unless CLUSTER=1 says the run is
 * meant for a real cluster, so that a mistyped variable never loads someone else's host.
 */
export function target() {
  const url = stringEnv('TARGET', 'http://127.0.0.1:8080').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+$/.test(url))
    throw new Error(`TARGET must be an origin such as http://127.0.0.1:8080, got "${url}"`);
  if (!LOOPBACK.test(url) && __ENV.CLUSTER !== '1') {
    throw new Error(
      `TARGET ${url} is not a loopback address: set CLUSTER=1 to load a real cluster (load/README.md)`,
    );
  }
  return { http: url, ws: url.replace(/^http/, 'ws') };
}

/** A per-run tag so that accounts of different runs never collide. */
export function runId() {
  return stringEnv(
    'RUN_ID',
    `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`,
  );
}
