import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { AuthService, TournamentService, timestampFromDate } from '@underdog/proto';
import { createMemoryBus } from '@underdog/bus';
import { ComponentGroup, createLogger, createMetricsRegistry } from '@underdog/kit';
import { allTopics } from '@underdog/platform';
import { createMemoryStore } from '@underdog/store';
import fc from 'fast-check';
import { createGateway, createGatewayClients, gatewaySettings, type GatewaySettings } from '../src';
import { stubAuth } from './support';

/**
 * What the edge tests share: the gateway in-process with its log lines captured, a raw TCP
 * exchange (node:net, so a request can be as broken as an attacker likes), and the seeded
 * generators of malformed requests that the unit and the process-level tests both send.
 */

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface EdgeGateway {
  port: number;
  url(path: string): string;
  /** Every line the gateway logged, parsed. */
  lines: LogLine[];
  stop(): Promise<void>;
}

/** The gateway on a free port in front of stub services, logging at debug into `lines`. */
export async function startEdgeGateway(
  settings: Partial<GatewaySettings> = {},
  env: Record<string, string> = {},
): Promise<EdgeGateway> {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) {
        if (line.trim()) lines.push(JSON.parse(line) as LogLine);
      }
      done();
    },
  });
  const logger = createLogger({ service: 'gateway-edge-test', level: 'debug', destination });
  const clients = createGatewayClients({
    auth: {
      mode: 'in-process',
      routes: (router) =>
        router.service(
          AuthService,
          stubAuth({ register: [], login: [], logout: [], getSession: [] }),
        ),
    },
    tournament: {
      mode: 'in-process',
      routes: (router) =>
        router.service(TournamentService, {
          getServerTime: () => ({ serverTime: timestampFromDate(new Date()) }),
          listTournaments: () => ({ tournaments: [] }),
        }),
    },
    ads: { mode: 'in-process', routes: () => undefined },
    game: { mode: 'in-process', routes: () => undefined },
    notification: { mode: 'in-process', routes: () => undefined },
  });
  const store = createMemoryStore();
  const bus = createMemoryBus({ logger });
  await bus.ensureTopics(allTopics);
  const group = new ComponentGroup(logger, []);
  const gateway = await createGateway({
    logger,
    registry: createMetricsRegistry('gateway-edge-test'),
    clients,
    store,
    bus,
    instanceId: 'edge-test',
    settings: { ...gatewaySettings(env, 'test'), ...settings },
    readiness: () => group.readiness(),
  });
  const http = gateway.listen({ port: 0, host: '127.0.0.1' });
  await http.start?.();
  const port = http.port();
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    lines,
    stop: async () => {
      await http.stop?.();
      await bus.close();
      await store.close();
    },
  };
}

export interface Exchange {
  /** Everything the server wrote back, as latin1 text. */
  response: string;
  /** The status of the first response line, if there was one. */
  status: number | undefined;
  /** Whether the server closed the connection (rather than the wait running out). */
  closed: boolean;
  /** Milliseconds from the first byte sent to the server's close (or the wait's end). */
  elapsedMs: number;
}

/**
 * Sends raw bytes over TCP and collects the answer until the server closes the connection or
 * `waitMs` passes. `after` writes more (or stalls) once the first bytes are out.
 */
export function rawExchange(
  port: number,
  request: string | Buffer,
  options: {
    waitMs?: number;
    /** Half-closes after writing: the server sees the request end where the bytes do. */
    endAfterWrite?: boolean;
    after?: (socket: Socket) => void;
  } = {},
): Promise<Exchange> {
  const waitMs = options.waitMs ?? 3_000;
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const response = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(response)?.[1];
      resolve({
        response,
        status: status === undefined ? undefined : Number(status),
        closed,
        elapsedMs: Date.now() - started,
      });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => finish(true));
    // A reset after the answer is still a closed connection; writes past the close are EPIPE.
    socket.on('error', () => finish(true));
    socket.on('connect', () => {
      if (options.endAfterWrite) socket.end(request);
      else socket.write(request);
      options.after?.(socket);
    });
  });
}

/** The H1 report's request, verbatim: an upgrade whose URL `new URL()` cannot parse. */
export const h1Request =
  'GET //[ HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n';

export function upgradeRequest(
  target: string,
  headers: Record<string, string> = {},
  method = 'GET',
): string {
  const all: Record<string, string> = {
    Host: '127.0.0.1',
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
    'Sec-WebSocket-Version': '13',
    ...headers,
  };
  const lines = Object.entries(all)
    .filter(([, value]) => value !== '')
    .map(([name, value]) => `${name}: ${value}\r\n`);
  return `${method} ${target} HTTP/1.1\r\n${lines.join('')}\r\n`;
}

/** A request the gateway must answer without going down; `upgrade` ones must get exactly 400. */
export interface MalformedRequest {
  kind: 'malformed upgrade' | 'malformed request';
  text: string;
}

const hostGarbage = fc.constantFrom(
  '[',
  '[::1',
  '[zz]',
  '%zz',
  'a:99999',
  'a:-1',
  'a b',
  '%',
  '[1:2:3:4:5:6:7:8:9]',
  'a:port',
);
const pathTail = fc.constantFrom('', '/', '/ws', '/graphql', '/graphql?x=1', '/ws#f');

/**
 * An upgrade to one of the WebSocket paths, or to a URL that cannot be parsed at all, with the
 * handshake broken in one way: every one of them must be answered 400 and closed.
 */
const malformedUpgrade: fc.Arbitrary<MalformedRequest> = fc
  .oneof(
    // URLs that `new URL()` throws on: the H1 family.
    fc
      .tuple(fc.constantFrom('//', 'http://', '///', '//user@'), hostGarbage, pathTail)
      .map(([prefix, host, tail]) => upgradeRequest(`${prefix}${host}${tail}`)),
    // A sound URL with a broken handshake.
    fc
      .tuple(
        fc.constantFrom('/ws', '/graphql', '/ws?deviceId=d1'),
        fc.constantFrom<Record<string, string>>(
          { 'Sec-WebSocket-Key': '' },
          { 'Sec-WebSocket-Key': 'short' },
          { 'Sec-WebSocket-Key': 'not base64 at all!!' },
          { 'Sec-WebSocket-Version': '' },
          { 'Sec-WebSocket-Version': '99' },
          { 'Sec-WebSocket-Version': 'abc' },
          { Upgrade: 'h2c' },
          { Upgrade: 'websocket2' },
        ),
      )
      .map(([target, headers]) => upgradeRequest(target, headers)),
  )
  .map((text) => ({ kind: 'malformed upgrade', text }));

const token = fc.string({
  unit: fc.constantFrom(...'GETPOSTpatch-_.!~*'.split('')),
  minLength: 1,
  maxLength: 8,
});
const anyByte = fc.integer({ min: 0, max: 255 }).map((code) => String.fromCharCode(code));
const junk = fc.string({ unit: anyByte, maxLength: 40 });

/**
 * Requests broken anywhere (request line, method, path, headers, framing), with and without an
 * `Upgrade` header: whatever the answer, the process stays up.
 */
const malformedRequest: fc.Arbitrary<MalformedRequest> = fc
  .tuple(
    fc.oneof(
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'CONNECT', 'PRI'),
      token,
      junk,
    ),
    fc.oneof(
      fc.constantFrom('/', '/healthz', '/api/login', '/graphql', '/ws', '*', '//[', '/%zz'),
      junk.map((path) => `/${path}`),
      fc
        .tuple(fc.constantFrom('//', 'http://'), hostGarbage, pathTail)
        .map(([a, b, c]) => a + b + c),
    ),
    fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9', '', 'http/1.1'),
    fc.array(
      fc.oneof(
        fc.constantFrom(
          'Upgrade: websocket',
          'Connection: Upgrade',
          'Connection: keep-alive, Upgrade',
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
          'Sec-WebSocket-Version: 13',
          'Content-Length: 5',
          'Content-Length: -1',
          'Content-Length: 99999999999999999999',
          'Transfer-Encoding: chunked',
          'Transfer-Encoding: gzip, chunked',
          'Content-Type: application/json',
          'Origin: http://evil.example',
          'Host: [',
          'X-Forwarded-For: ::ffff:1.2.3.4, [',
          'Expect: 100-continue',
        ),
        fc.tuple(junk, junk).map(([name, value]) => `${name}: ${value}`),
        junk,
      ),
      { maxLength: 6 },
    ),
    fc.constantFrom('', 'hello', '0\r\n\r\n', 'zz\r\n'),
  )
  .map(([method, target, version, headers, body]) => ({
    kind: 'malformed request' as const,
    text: `${method} ${target} ${version}\r\nHost: 127.0.0.1\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n${body}`,
  }));

export const malformedTraffic: fc.Arbitrary<MalformedRequest> = fc.oneof(
  malformedUpgrade,
  malformedRequest,
);

/**
 * The seed of a property run: `EDGE_FUZZ_SEED` replays one, otherwise a fresh one. fast-check
 * prints it (with the failing case's path) in the failure; the test names it again.
 */
export function fuzzSeed(): number {
  const fromEnv = Number(process.env.EDGE_FUZZ_SEED);
  return Number.isInteger(fromEnv) ? fromEnv : Math.floor(Math.random() * 2 ** 31);
}

/**
 * Sends each generated request over its own TCP connection, then `/healthz`: the gateway must
 * answer a malformed upgrade with exactly 400 and close, and answer every request (or close
 * the connection) without going down. Fails with the seed to replay it.
 */
export async function assertSurvivesMalformedTraffic(
  port: number,
  options: { numRuns: number; seed: number },
): Promise<void> {
  const property = fc.asyncProperty(malformedTraffic, async (request) => {
    const upgrade = request.kind === 'malformed upgrade';
    const exchange = await rawExchange(port, request.text, {
      waitMs: 2_000,
      endAfterWrite: !upgrade,
    });
    if (upgrade) {
      expect({ status: exchange.status, closed: exchange.closed }).toEqual({
        status: 400,
        closed: true,
      });
    } else if (exchange.status !== undefined) {
      // An answer, if any, is never a server error.
      expect(exchange.status).toBeLessThan(500);
    }
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
  });
  try {
    await fc.assert(property, { numRuns: options.numRuns, seed: options.seed });
  } catch (error) {
    throw new Error(
      `malformed traffic brought the gateway down (replay: EDGE_FUZZ_SEED=${options.seed})\n${String(error)}`,
    );
  }
}
